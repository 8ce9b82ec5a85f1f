package dev.memoryd.daemon.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code memoryd promotions list|accept|reject}: Extensions subsections promoted to core sections, over the socket. */
@Command(
        name = "promotions",
        description = "Extensions subsections that recur, and their promotion to core sections.",
        subcommands = {PromotionsList.class, PromotionsAccept.class, PromotionsReject.class})
final class PromotionsCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "a promotions command is required (list, accept, reject)");
    }
}
