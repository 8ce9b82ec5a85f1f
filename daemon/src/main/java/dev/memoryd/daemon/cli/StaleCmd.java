package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memoryd stale <scope>}: the socket method {@code stale}. Prints one stale derived chunk
 * a line ({@code id  name  stale: N commit(s) since <source_commit>: <ids>}, or its reason); exit
 * 0 when none is stale, 1 when some are (as lint does for problems) or the daemon refuses.
 */
@Command(
        name = "stale",
        description = {
            MethodSummaries.STALE,
            "Derived chunks are summaries, embeddings and the like; exit 1 when some are stale."
        })
final class StaleCmd extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the derivation scope: a chunk id or a name path, e.g. summaries/opus-4.6")
    String scope;

    @Option(names = "--at", description = "judge as of this commit")
    String at;

    @Option(names = "--limit", description = "list at most this many (default 100)")
    Integer limit;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("scope", scope);
        if (at != null) {
            p.put("at", at);
        }
        if (limit != null) {
            p.put("limit", limit);
        }
        try (dev.memoryd.daemon.client.SocketClient c = Main.connect(config())) {
            com.fasterxml.jackson.databind.JsonNode reply = c.call("stale", p);
            if (reply == null || reply.has("error")) {
                return out.print(reply);
            }
            com.fasterxml.jackson.databind.JsonNode r = reply.get("result");
            if (out.on()) {
                out.print(reply);
            } else {
                for (com.fasterxml.jackson.databind.JsonNode x : r.get("stale")) {
                    List<String> ids = new java.util.ArrayList<>();
                    x.path("changed_since").forEach(id -> ids.add(id.asText().substring(0, 12)));
                    System.out.println(
                            x.path("id").asText() + "  " + x.path("name").asText("-") + "  stale: "
                                    + (x.has("stale_reason")
                                            ? x.get("stale_reason").asText()
                                            : x.path("changed_total").asInt(ids.size()) + " commit(s) since "
                                                    + x.path("body")
                                                            .path("source_commit")
                                                            .asText() + ": " + String.join(" ", ids)));
                }
                System.err.println("memoryd: " + r.path("total").asInt() + " of "
                        + r.path("derived").asInt() + " derived chunk(s) under " + scope + " stale");
            }
            return r.path("total").asInt() > 0 ? Main.PROBLEMS : Main.OK;
        }
    }
}
