package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code memoryd promotions list}. */
@Command(
        name = "list",
        description = {
            MethodSummaries.PROMOTIONS_LIST,
            "A heading is listed when it recurs in at least N files of one type."
        })
final class PromotionsList extends Printing implements Callable<Integer> {
    @Option(
            names = "--min-files",
            description = "in how many files of one type a heading must recur (default: the root's"
                    + " promotions.min_files in memoryd.yaml, else 3)")
    Integer minFiles;

    @Option(names = "--file-type", description = "only this file type (user, part, relationship)")
    String fileType;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode();
        if (minFiles != null) {
            p.put("min_files", minFiles);
        }
        if (fileType != null) {
            p.put("file_type", fileType);
        }
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("promotions.list", p);
            if (out.on() || reply.has("error")) {
                return out.print(reply);
            }
            JsonNode r = reply.get("result");
            if (r.path("candidates").isEmpty()) {
                System.out.println("no promotions to propose (grammar version "
                        + r.path("grammar_version").asInt() + ")");
            }
            for (JsonNode x : r.path("candidates")) {
                System.out.println(x.path("file_type").asText() + "  \""
                        + x.path("heading").asText() + "\"  in "
                        + x.path("files").asInt() + " files: "
                        + String.join(", ", JsonRpc.MAPPER.convertValue(x.path("paths"), String[].class)));
            }
            return Main.OK;
        }
    }
}
