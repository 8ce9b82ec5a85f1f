package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd traverse}: the socket method {@code traverse}. */
@Command(
        name = "traverse",
        description = {
            MethodSummaries.TRAVERSE,
            "Follow connections from a chunk: what is placed on it, and where else those are placed."
        })
final class TraverseCmd extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the chunk: an id or a name path")
    String from;

    @Option(names = "--depth", defaultValue = "1", description = "follow connections this many steps (1 to 5)")
    int depth;

    @Option(names = "--at", description = "read the field as of this commit")
    String at;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("from", from).put("depth", depth);
        if (at != null) {
            p.put("at", at);
        }
        return out.call(config(), "traverse", p);
    }
}
