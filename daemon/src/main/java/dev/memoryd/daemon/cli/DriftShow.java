package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code memoryd drift show}: the socket method {@code drift.show}. */
@Command(
        name = "show",
        description = {MethodSummaries.DRIFT_SHOW, "What drifted and why, with a diff from the recorded text."})
final class DriftShow extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "drift item id")
    String id;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("id", id);
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("drift.show", p);
            if (out.on() || reply.has("error")) {
                return out.print(reply);
            }
            JsonNode r = reply.get("result");
            System.out.println("drift " + r.get("id").asText() + " in "
                    + r.get("path").asText() + " (" + r.get("kind").asText() + ", since "
                    + r.get("since").asText() + ")");
            System.out.println("why: " + r.get("reason").asText());
            for (JsonNode pr : r.path("problems")) {
                System.out.println("  line " + pr.get("line").asInt() + ": "
                        + pr.get("rule").asText() + ": " + pr.get("message").asText());
            }
            JsonNode commits = r.path("human").path("commits");
            for (JsonNode cm : commits) {
                System.out.println("commit " + cm.get("id").asText().substring(0, 12) + " "
                        + cm.get("author").asText() + " " + cm.get("date").asText() + " "
                        + cm.get("subject").asText());
            }
            System.out.println();
            System.out.print(r.get("diff").asText());
            return Main.OK;
        }
    }
}
