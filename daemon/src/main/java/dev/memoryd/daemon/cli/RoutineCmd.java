package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd routine <id>}: the socket method {@code routine.compile}; prints the routine as markdown. */
@Command(
        name = "routine",
        description = {MethodSummaries.ROUTINE_COMPILE, "Needs the daemon."})
final class RoutineCmd extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the routine's slice id or memory file path")
    String id;

    @Option(names = "--depth", defaultValue = "4", description = "how many routines read steps may nest")
    int depth;

    @Override
    public Integer call() throws IOException {
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call(
                    "routine.compile",
                    JsonRpc.MAPPER.createObjectNode().put("id", id).put("depth", depth));
            if (out.on() || reply.has("error")) {
                return out.print(reply);
            }
            System.out.print(reply.path("result").path("markdown").asText());
            return Main.OK;
        }
    }
}
