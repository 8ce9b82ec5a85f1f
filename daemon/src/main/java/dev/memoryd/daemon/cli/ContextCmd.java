package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.JsonSyntaxError;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code memoryd context}: the socket method {@code context}, its result printed as one line of
 * RFC 8785 JSON, which is already the {@code --json} form: the flag is taken, as by every command
 * that prints a result, and changes nothing.
 */
@Command(
        name = "context",
        description = {MethodSummaries.CONTEXT, "Prints the SliceExport as RFC 8785 JSON."})
final class ContextCmd extends Printing implements Callable<Integer> {
    @Option(names = "--anchor", required = true, description = "the anchor turn id")
    String anchor;

    @Option(names = "--policy", description = "policy configuration as JSON (default: the spec's defaults)")
    String policy;

    @Override
    public Integer call() throws IOException {
        ObjectNode params = JsonRpc.MAPPER.createObjectNode();
        params.put("anchor_turn_id", anchor);
        if (policy != null) {
            try {
                params.set("policy", JsonRpc.MAPPER.readTree(policy));
            } catch (JsonProcessingException e) {
                System.err.println("memoryd: --policy is not valid JSON"
                        + JsonSyntaxError.of(e).atWhere());
                return Main.USAGE;
            }
        }
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("context", params);
            if (reply.has("error")) {
                return Main.print(reply);
            }
            System.out.println(dev.memoryd.jcs.Jcs.canonicalize(reply.get("result")));
            return Main.OK;
        }
    }
}
