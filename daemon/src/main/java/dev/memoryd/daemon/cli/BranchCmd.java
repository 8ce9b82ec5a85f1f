package dev.memoryd.daemon.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code memoryd branch create|list|delete|merge}: thin wrappers over the socket methods. */
@Command(
        name = "branch",
        description = "Branches: Git branches with their own ledger chains.",
        subcommands = {BranchCreate.class, BranchList.class, BranchDelete.class, BranchMerge.class})
final class BranchCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "a branch command is required (create, list, delete, merge)");
    }
}
