package dev.memoryd.daemon.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code memoryd ledger verify|rotate-key}: the ledger's commands; alone, a usage error. */
@Command(
        name = "ledger",
        description = "Ledger commands.",
        subcommands = {LedgerVerify.class, LedgerRotateKey.class})
final class LedgerCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a ledger command is required (verify)");
    }
}
