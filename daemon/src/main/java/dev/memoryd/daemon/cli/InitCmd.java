package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.Memoryd;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code memoryd init}: creates a memory root, optionally with an example {@code users/} tree. */
@Command(name = "init", description = "Create a memory root (a Git repository made with JGit).")
final class InitCmd extends Common implements Callable<Integer> {
    @Option(names = "--example", description = "copy an example users/ tree in (e.g. ./users)")
    Path example;

    @Override
    public Integer call() throws IOException {
        try {
            for (String line : Memoryd.init(config(), example)) {
                System.out.println(line);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("memoryd: " + e.getMessage());
            return Main.USAGE;
        }
        System.out.println("memory root ready at " + config().root());
        return Main.OK;
    }
}
