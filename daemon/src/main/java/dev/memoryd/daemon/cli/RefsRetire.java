package dev.memoryd.daemon.cli;

import picocli.CommandLine.Command;

/** {@code memoryd refs retire}: the socket method {@code refs.retire}. */
@Command(
        name = "retire",
        description = {
            MethodSummaries.REFS_RETIRE,
            "Stop following a reference (the pointer stays, marked retired); closes"
                    + " its drift item. <id>: the reference id, or its drift item id."
        })
final class RefsRetire extends Decision {
    @Override
    String method() {
        return "refs.retire";
    }
}
