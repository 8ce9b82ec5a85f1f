package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.ReadOnlyRoot;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code memoryd slices list}: every slice with its freshness, read here. */
@Command(
        name = "list",
        description = {MethodSummaries.SLICES_LIST, "Works without a daemon."})
final class SlicesList extends Printing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
        try (ReadOnlyRoot m = Memoryd.openReadOnly(config())) {
            List<ObjectNode> items =
                    m.slices().list(java.time.Instant.now(), m.config().halfLife());
            if (out.on()) {
                ObjectNode r = JsonRpc.MAPPER.createObjectNode(); // as the daemon's slices.list answers
                items.forEach(r.putArray("items")::add);
                JsonOutput.line(r);
                return Main.OK;
            }
            for (ObjectNode o : items) {
                System.out.println(o.path("id").asText() + "  " + o.path("path").asText() + "  "
                        + o.path("tag").asText("[no date]") + "  "
                        + o.path("title").asText(""));
            }
            return Main.OK;
        }
    }
}
