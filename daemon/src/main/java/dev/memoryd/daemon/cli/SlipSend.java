package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.JsonSyntaxError;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd slip send}: the socket method {@code slip.send}. */
@Command(
        name = "send",
        description = {MethodSummaries.SLIP_SEND, "The message is nSLIP text, or its JSON form with --json."})
final class SlipSend extends Common implements Callable<Integer> {
    @Parameters(index = "0", description = "the message (nSLIP, or JSON with --json)")
    String message;

    @Option(names = "--json", description = "the message is the JSON form")
    boolean json;

    @Override
    public Integer call() throws IOException {
        ObjectNode params = JsonRpc.MAPPER.createObjectNode();
        if (json) {
            try {
                params.set("message", JsonRpc.MAPPER.readTree(message));
            } catch (JsonProcessingException e) {
                System.err.println("memoryd: --json message is not valid JSON"
                        + JsonSyntaxError.of(e).atWhere());
                return Main.USAGE;
            }
        } else {
            params.put("message", message);
        }
        // Not a Printing command: its --json says how the message is written, not how to print.
        try (SocketClient c = Main.connect(config())) {
            return Main.print(c.call("slip.send", params));
        }
    }
}
