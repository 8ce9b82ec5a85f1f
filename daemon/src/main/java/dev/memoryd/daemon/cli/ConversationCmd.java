package dev.memoryd.daemon.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code memoryd conversation append}: conversation turns, over the socket. */
@Command(
        name = "conversation",
        description = "Conversation turns (what context selects from).",
        subcommands = {ConversationAppend.class})
final class ConversationCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a conversation command is required (append)");
    }
}
