package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd branch delete}: the socket method {@code branch.delete}. */
@Command(
        name = "delete",
        description = {
            MethodSummaries.BRANCH_DELETE,
            "Its ref goes (to refs/memoryd/deleted/); its history and ledger stay."
        })
final class BranchDelete extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the branch to delete")
    String name;

    @Option(names = "--actor", defaultValue = "user", description = "who deletes it (recorded as the event's actor)")
    String actor;

    @Override
    public Integer call() throws IOException {
        return out.call(
                config(),
                "branch.delete",
                JsonRpc.MAPPER.createObjectNode().put("name", name).put("actor", actor));
    }
}
