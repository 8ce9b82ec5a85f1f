package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code memoryd refs reconcile}: the socket method {@code refs.reconcile}; exit 1 when references
 * moved on or could not be checked.
 */
@Command(
        name = "reconcile",
        description = {
            MethodSummaries.REFS_RECONCILE,
            "Walk history since each pin; changed, renamed and deleted references"
                    + " go to the drift queue (exit 1 when there are any)."
        })
final class RefsReconcile extends Printing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("refs.reconcile", JsonRpc.MAPPER.createObjectNode());
            if (reply == null || reply.has("error")) {
                return Main.print(reply);
            }
            JsonNode r = reply.get("result");
            if (out.on()) {
                out.print(reply);
            } else {
                System.out.println(r.get("checked").asInt() + " reference(s) checked, "
                        + r.get("findings").size() + " moved on, in "
                        + r.get("millis").asLong() + " ms");
                for (JsonNode f : r.get("findings")) {
                    System.out.println(f.get("drift_id").asText() + "  "
                            + f.get("kind").asText() + "  " + f.get("path").asText()
                            + (f.hasNonNull("new_path")
                                    ? " -> " + f.get("new_path").asText()
                                    : "") + "  (reference "
                            + f.get("id").asText() + ", "
                            + f.get("commits_total").asInt() + " commit(s))");
                }
                for (JsonNode pr : r.get("problems")) {
                    System.out.println("cannot check " + pr.get("id").asText() + " ("
                            + pr.get("path").asText() + "): "
                            + pr.get("problem").asText());
                }
            }
            return r.get("findings").isEmpty() && r.get("problems").isEmpty() ? Main.OK : Main.PROBLEMS;
        }
    }
}
