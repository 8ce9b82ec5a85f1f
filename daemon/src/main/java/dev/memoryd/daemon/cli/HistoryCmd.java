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

/**
 * {@code memoryd history <path>}: the socket method {@code history}. Prints one event a line,
 * newest first ({@code ts  op  section  actor  event_id}, then the rationale and, when recorded, the
 * provenance indented); exit 0
 * also when the file has no recorded event (said on stderr), 1 when the daemon refuses.
 */
@Command(
        name = "history",
        description = {MethodSummaries.HISTORY, "Needs the daemon."})
final class HistoryCmd extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "path relative to the root, e.g. users/sam/overview.md")
    String path;

    @Option(names = "--section", description = "only this section (canonical heading or anchor slug)")
    String section;

    static final String DEFAULT_LIMIT = "100"; // also FastArgs'

    @Option(names = "--limit", defaultValue = DEFAULT_LIMIT, description = "at most this many events")
    int limit;

    @Option(names = "--branch", description = "read this branch's chain (default: the branch the daemon serves)")
    String branch;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonNodeFactory.instance.objectNode().put("path", path).put("limit", limit);
        if (section != null) {
            p.put("section", section);
        }
        if (branch != null) {
            p.put("branch", branch);
        }
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("history", p);
            if (out.on() || reply.has("error")) {
                return out.print(reply);
            }
            JsonNode events = reply.get("result").get("events");
            if (events.isEmpty()) {
                System.err.println("memoryd: no recorded event for " + path + (section != null ? " § " + section : ""));
            }
            for (JsonNode e : events) {
                System.out.println(e.path("ts").asText() + "  " + e.path("op").asText() + "  "
                        + e.path("section_anchor").asText("-") + "  "
                        + e.path("actor").asText() + "  " + e.path("event_id").asText());
                if (e.path("rationale").isTextual()) {
                    System.out.println("    " + e.get("rationale").asText().replace("\n", "\n    "));
                }
                JsonNode prov = e.path("payload").path("provenance");
                if (prov.isObject()) {
                    StringBuilder sb = new StringBuilder("    provenance:");
                    prov.fields()
                            .forEachRemaining(f -> sb.append(' ')
                                    .append(f.getKey())
                                    .append('=')
                                    .append(
                                            f.getValue().isTextual()
                                                    ? f.getValue().asText()
                                                    : f.getValue().toString()));
                    System.out.println(sb);
                }
            }
            return Main.OK;
        }
    }
}
