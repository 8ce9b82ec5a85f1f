package dev.memoryd.daemon.cli;

import picocli.CommandLine.Command;

/** {@code memoryd proposals accept}: the socket method {@code proposals.accept}. */
@Command(
        name = "accept",
        description = {
            MethodSummaries.PROPOSALS_ACCEPT,
            "It is applied onto the branch as it is now, as a merge commit."
        })
final class ProposalsAccept extends Decision {
    @Override
    String method() {
        return "proposals.accept";
    }

    @Override
    String defaultActor() {
        return null; // the daemon records the person the root's git identity names
    }
}
