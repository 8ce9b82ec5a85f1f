package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The socket method {@code conversation.append}: the turns (a JSON array of SliceExport turns)
 * come from stdin or {@code --file}; input that is not a JSON array is a usage error (exit 2).
 */
@Command(
        name = "append",
        description = {
            MethodSummaries.CONVERSATION_APPEND,
            "Turns are a JSON array of turn objects, from stdin or --file; needs the daemon."
        })
final class ConversationAppend extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the session id")
    String session;

    @Option(names = "--file", description = "read the turns from this file instead of stdin")
    Path file;

    @Option(names = "--actor", description = "who appends (recorded as the event's actor; default: the daemon's)")
    String actor;

    @Override
    public Integer call() throws IOException {
        JsonNode turns;
        try {
            turns = InputText.json(file, "the turns");
        } catch (InputText.Refused e) {
            return e.print();
        }
        if (turns == null || !turns.isArray()) {
            System.err.println(
                    "memoryd: the turns must be a JSON array of turn objects [{\"id\": ..., \"role\": ...}, ...]");
            return Main.USAGE;
        }
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("session_id", session);
        p.set("turns", turns);
        if (actor != null) {
            p.put("actor", actor);
        }
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("conversation.append", p);
            if (out.on() || reply.has("error")) {
                return out.print(reply);
            }
            JsonNode r = reply.get("result");
            System.out.println("appended " + turns.size() + " turn(s) to " + session + " in commit "
                    + r.path("commit").asText() + " (" + r.path("token").asText() + ")");
            return Main.OK;
        }
    }
}
