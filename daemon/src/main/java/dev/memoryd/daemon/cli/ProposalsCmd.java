package dev.memoryd.daemon.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code memoryd proposals list|show|accept|reject}: agents' changes waiting for review, over the socket. */
@Command(
        name = "proposals",
        description = "Agents' changes to sections marked for review.",
        subcommands = {ProposalsList.class, ProposalsShow.class, ProposalsAccept.class, ProposalsReject.class})
final class ProposalsCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "a proposals command is required (list, show, accept, reject)");
    }
}
