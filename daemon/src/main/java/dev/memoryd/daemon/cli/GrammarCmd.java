package dev.memoryd.daemon.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code memoryd grammar set-cap|set-kind}: maintainers tune the grammar in force, over the socket. */
@Command(
        name = "grammar",
        description = "Tune the grammar in force.",
        subcommands = {GrammarSetCap.class, GrammarSetKind.class})
final class GrammarCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "a grammar command is required (set-cap, set-kind)");
    }
}
