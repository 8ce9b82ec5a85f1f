package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code memoryd refs list}: the socket method {@code refs.list}. */
@Command(
        name = "list",
        description = {MethodSummaries.REFS_LIST, "Each with its pin."})
final class RefsList extends Printing implements Callable<Integer> {
    @Option(names = "--all", description = "retired references too")
    boolean all;

    @Override
    public Integer call() throws IOException {
        return out.call(config(), "refs.list", JsonRpc.MAPPER.createObjectNode().put("all", all));
    }
}
