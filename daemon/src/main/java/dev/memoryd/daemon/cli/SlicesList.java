package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.ReadOnlyRoot;
import dev.memoryd.daemon.rpc.SliceReplies;
import dev.memoryd.daemon.slices.SliceListing;
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
            List<SliceListing> items =
                    m.slices().list(java.time.Instant.now(), m.config().halfLife());
            if (out.on()) {
                JsonOutput.line(SliceReplies.list(items)); // as the daemon's slices.list answers
                return Main.OK;
            }
            for (SliceListing s : items) {
                System.out.println(s.id() + "  " + s.path() + "  "
                        + s.freshness().map(SliceListing.Freshness::tag).orElse("[no date]") + "  "
                        + (s.title() == null ? "" : s.title()));
            }
            return Main.OK;
        }
    }
}
