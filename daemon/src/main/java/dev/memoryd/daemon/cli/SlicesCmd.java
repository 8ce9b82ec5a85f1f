package dev.memoryd.daemon.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code memoryd slices list|append-row|create}: generic slices; alone, a usage error. */
@Command(
        name = "slices",
        description = "Generic slices.",
        subcommands = {SlicesList.class, SlicesAppendRow.class, SlicesCreate.class})
final class SlicesCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "a slices command is required (list, append-row, create)");
    }
}
