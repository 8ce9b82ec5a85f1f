package dev.memoryd.daemon.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code memoryd refs add|list|reconcile|repin|retire}: file references, over the socket. */
@Command(
        name = "refs",
        description = "File references pinned to Git commits and reconciled against history.",
        subcommands = {RefsAdd.class, RefsList.class, RefsReconcile.class, RefsRepin.class, RefsRetire.class})
final class RefsCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "a refs command is required (add, list, reconcile, repin, retire)");
    }
}
