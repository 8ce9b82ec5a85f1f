package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd branch create}: the socket method {@code branch.create}. */
@Command(
        name = "create",
        description = {MethodSummaries.BRANCH_CREATE, "From a branch (default: the checked-out one) or any commit."})
final class BranchCreate extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the new branch's name")
    String name;

    @Option(names = "--from", description = "a branch or commit to start from (default: the checked-out branch)")
    String from;

    @Option(names = "--actor", defaultValue = "user", description = "who creates it (recorded as the event's actor)")
    String actor;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("name", name).put("actor", actor);
        if (from != null) {
            p.put("from", from);
        }
        return out.call(config(), "branch.create", p);
    }
}
