package dev.memoryd.daemon.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code memoryd drift list|show|resolve}: the drift queue, over the socket. */
@Command(
        name = "drift",
        description = "The drift queue: files a human's edit left for a maintainer.",
        subcommands = {DriftList.class, DriftShow.class, DriftResolve.class})
final class DriftCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "a drift command is required (list, show, resolve)");
    }
}
