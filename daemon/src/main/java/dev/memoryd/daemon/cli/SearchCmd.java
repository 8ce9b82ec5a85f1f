package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd search}: the socket method {@code search}; exit 1 when nothing matches. */
@Command(
        name = "search",
        description = {MethodSummaries.SEARCH, "Hits carry FRESH/STALE ages; exit 1 when nothing matches."})
final class SearchCmd extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the query (Lucene syntax: words, \"phrases\", OR, -not, field:word)")
    String q;

    static final String DEFAULT_LIMIT = "10"; // also FastArgs'

    @Option(names = "--limit", defaultValue = DEFAULT_LIMIT, description = "at most this many hits")
    int limit;

    @Option(
            names = "--source",
            description = "only JSONL rows recorded with this provenance source"
                    + " (user-statement, inference, observation)")
    String source;

    @Override
    public Integer call() throws IOException {
        ObjectNode params = JsonNodeFactory.instance.objectNode();
        params.put("q", q);
        params.put("limit", limit);
        if (source != null) {
            params.put("source", source);
        }
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("search", params);
            if (reply == null || reply.has("error")) {
                return Main.print(reply);
            }
            JsonNode hits = reply.get("result").get("hits");
            if (out.on()) {
                out.print(reply);
            } else {
                for (JsonNode h : hits) {
                    System.out.println(h.path("path").asText()
                            + (h.path("section").isTextual()
                                    ? " § " + h.path("section").asText()
                                    : "") + "  " + h.path("tag").asText("") + "  ("
                            + h.path("score").asDouble() + ")");
                }
            }
            if (hits.isEmpty()) {
                // As grep: a search that finds nothing is not a success, so scripts can tell.
                System.err.println("memoryd: no match for '" + q + "'");
                return Main.PROBLEMS;
            }
            return Main.OK;
        }
    }
}
