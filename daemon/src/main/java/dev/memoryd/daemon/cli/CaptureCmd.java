package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code memoryd capture [path...]}: the socket method {@code capture}. Prints the commit that
 * recorded the edits, or that there was nothing to record (both exit 0).
 */
@Command(
        name = "capture",
        description = {
            MethodSummaries.CAPTURE,
            "Records edits of the memory files named (all when none is) and any commit made with git"
                    + " without waiting for the tree to be quiet; needs the daemon."
        })
final class CaptureCmd extends Printing implements Callable<Integer> {
    @Parameters(arity = "0..*", description = "memory files, relative to the root")
    List<String> paths = List.of();

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode();
        if (!paths.isEmpty()) {
            paths.forEach(p.putArray("paths")::add);
        }
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("capture", p);
            if (out.on() || reply.has("error")) {
                return out.print(reply);
            }
            JsonNode r = reply.get("result");
            System.out.println(
                    r.path("captured").asBoolean()
                            ? "captured in commit " + r.path("commit").asText()
                            : "nothing to capture: the files are as recorded");
            return Main.OK;
        }
    }
}
