package dev.memoryd.daemon.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code memoryd slip send|recv}: SLIP messages relayed by the daemon; alone, a usage error. */
@Command(
        name = "slip",
        description = "Relay SLIP agent messages through the daemon.",
        subcommands = {SlipSend.class, SlipRecv.class})
final class SlipCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a slip command is required (send, recv)");
    }
}
