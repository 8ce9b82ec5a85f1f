package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code memoryd proposals list}: the socket method {@code proposals.list}. */
@Command(
        name = "list",
        description = {MethodSummaries.PROPOSALS_LIST, "--all lists accepted and rejected ones too."})
final class ProposalsList extends Printing implements Callable<Integer> {
    @Option(names = "--all", description = "accepted and rejected proposals too")
    boolean all;

    @Override
    public Integer call() throws IOException {
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply =
                    c.call("proposals.list", JsonRpc.MAPPER.createObjectNode().put("all", all));
            if (out.on() || reply.has("error")) {
                return out.print(reply);
            }
            JsonNode items = reply.get("result").get("items");
            if (items.isEmpty()) {
                System.out.println("no proposals");
            }
            for (JsonNode i : items) {
                StringBuilder what = new StringBuilder();
                i.path("changes")
                        .forEach(ch -> what.append(what.length() == 0 ? "" : "; ")
                                .append(ch.path("summary").asText()));
                System.out.println(i.get("id").asText() + "  " + i.get("status").asText() + "  "
                        + i.get("branch").asText() + "  by " + i.get("actor").asText() + "  "
                        + i.get("created").asText() + "\n    " + what);
            }
            return Main.OK;
        }
    }
}
