package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code memoryd drift list}: the socket method {@code drift.list}; exit 1 when there are open items. */
@Command(
        name = "list",
        description = {MethodSummaries.DRIFT_LIST, "Oldest first; exit 1 when there are any."})
final class DriftList extends Printing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("drift.list", null);
            if (out.on() || reply.has("error")) {
                return out.print(reply);
            }
            JsonNode items = reply.get("result").get("items");
            if (items.isEmpty()) {
                System.out.println("no drift");
                return Main.OK;
            }
            for (JsonNode i : items) {
                System.out.println(i.get("id").asText() + "  " + i.get("path").asText() + "  "
                        + i.get("kind").asText() + "  since " + i.get("since").asText() + "\n    "
                        + i.get("reason").asText());
            }
            return Main.PROBLEMS;
        }
    }
}
