package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.ReadOnlyRoot;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.read.ReadResult;
import dev.memoryd.daemon.rpc.MemoryReplies;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memoryd read}: a memory file or one section, through the daemon when one serves the root
 * ({@link DaemonRead}), read here otherwise.
 */
@Command(
        name = "read",
        description = {MethodSummaries.READ, "Works without a daemon."})
final class ReadCmd extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "path relative to the root, e.g. users/sam/overview.md")
    String path;

    @Option(names = "--section", description = "canonical heading or anchor slug")
    String section;

    @Option(names = "--at", description = "a commit (id, branch, HEAD~n) to read from")
    String at;

    @Override
    public Integer call() throws IOException {
        Integer served = DaemonRead.read(config(), path, section, at, out.on());
        if (served != null) {
            return served;
        }
        try (ReadOnlyRoot m = Memoryd.openReadOnly(config())) {
            Outcome<ReadResult> o = m.read(path, section, at, out.on()); // printing text needs no key
            if (o instanceof Outcome.Failed<ReadResult> f) {
                return Main.fail(f.failure());
            }
            ReadResult r = ((Outcome.Ok<ReadResult>) o).value();
            if (out.on()) {
                JsonOutput.line(MemoryReplies.read(r));
            } else {
                System.out.print(r.content());
            }
            return Main.OK;
        }
    }
}
