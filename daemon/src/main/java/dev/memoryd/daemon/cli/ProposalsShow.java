package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code memoryd proposals show}: the socket method {@code proposals.show}. */
@Command(
        name = "show",
        description = {MethodSummaries.PROPOSALS_SHOW, "Its changes and ops."})
final class ProposalsShow extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the proposal's id")
    String id;

    @Override
    public Integer call() throws IOException {
        return out.call(
                config(), "proposals.show", JsonRpc.MAPPER.createObjectNode().put("id", id));
    }
}
