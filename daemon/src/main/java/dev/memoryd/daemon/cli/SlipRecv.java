package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code memoryd slip recv}: the socket method {@code slip.recv}. */
@Command(
        name = "recv",
        description = {MethodSummaries.SLIP_RECV, "Each message is delivered once."})
final class SlipRecv extends Printing implements Callable<Integer> {
    @Option(names = "--agent", required = true, description = "the destination agent id")
    long agent;

    @Option(names = "--wait-ms", defaultValue = "0", description = "wait this long for a first message")
    int waitMs;

    @Option(names = "--max", defaultValue = "100", description = "at most this many messages")
    int max;

    @Override
    public Integer call() throws IOException {
        ObjectNode params = JsonRpc.MAPPER.createObjectNode();
        params.put("agent", agent);
        params.put("wait_ms", waitMs);
        params.put("max", max);
        return out.call(config(), "slip.recv", params);
    }
}
