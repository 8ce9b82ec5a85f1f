package dev.memoryd.daemon.cli;

import picocli.CommandLine.Command;

/** {@code memoryd refs repin}: the socket method {@code refs.repin}. */
@Command(
        name = "repin",
        description = {
            MethodSummaries.REFS_REPIN,
            "A renamed file is pinned under its new name; closes its drift item."
                    + " <id>: the reference id, or its drift item id."
        })
final class RefsRepin extends Decision {
    @Override
    String method() {
        return "refs.repin";
    }
}
