package dev.memoryd.daemon.cli;

import picocli.CommandLine.Command;

/** {@code memoryd proposals reject}: the socket method {@code proposals.reject}. */
@Command(
        name = "reject",
        description = {MethodSummaries.PROPOSALS_REJECT, "The rejection is recorded; its branch stays in history."})
final class ProposalsReject extends Decision {
    @Override
    String method() {
        return "proposals.reject";
    }

    @Override
    String defaultActor() {
        return null; // the daemon records the person the root's git identity names
    }
}
