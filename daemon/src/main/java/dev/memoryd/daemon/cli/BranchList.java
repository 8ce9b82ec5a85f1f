package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code memoryd branch list}: the socket method {@code branch.list}. */
@Command(
        name = "list",
        description = {
            MethodSummaries.BRANCH_LIST,
            "Each with its head, whether it is checked out, and its ledger lines."
        })
final class BranchList extends Printing implements Callable<Integer> {

    @Override
    public Integer call() throws IOException {
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("branch.list", null);
            if (out.on() || reply.has("error")) {
                return out.print(reply);
            }
            for (JsonNode b : reply.get("result").get("branches")) {
                System.out.println((b.get("checked_out").asBoolean() ? "* " : "  ")
                        + b.get("name").asText() + "  " + b.get("head").asText().substring(0, 12) + "  "
                        + b.get("chain_lines").asLong() + " ledger lines");
            }
            return Main.OK;
        }
    }
}
