package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.Memoryd;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd clone}: a new root from a Git URL ({@link dev.memoryd.daemon.Memoryd#cloneRoot}). */
@Command(name = "clone", description = "Make a new root from a Git URL (remote origin) that syncs as its own replica.")
final class CloneCmd extends Common implements Callable<Integer> {
    @Parameters(index = "0", description = "the repository to clone (a path or URL)")
    String url;

    @Option(names = "--replica", description = "this root's replica id (1-32 of a-z, 0-9, -; default: generated)")
    String replica;

    @Override
    public Integer call() throws IOException {
        try {
            for (String line : Memoryd.cloneRoot(config(), url, replica)) {
                System.out.println(line);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("memoryd: " + e.getMessage());
            return Main.USAGE;
        }
        return Main.OK;
    }
}
