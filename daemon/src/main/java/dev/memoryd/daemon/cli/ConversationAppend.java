package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The socket method {@code conversation.append}: the turns (a JSON array of SliceExport turns)
 * come from stdin or {@code --file}; input that is not a JSON array is a usage error (exit 2).
 * Turns more than one request carries are sent in order in as many requests as they need, each
 * its own commit; a turn too large for any request is refused before anything is sent, and when a
 * request is refused the command says which turns the ones before it recorded.
 */
@Command(
        name = "append",
        description = {
            MethodSummaries.CONVERSATION_APPEND,
            "Turns are a JSON array of turn objects, from stdin or --file; needs the daemon."
        })
final class ConversationAppend extends Printing implements Callable<Integer> {
    /** Room a request keeps for its envelope: {@code jsonrpc}, {@code id}, {@code method} and the line's end. */
    private static final int ENVELOPE_BYTES = 256;

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
        if (actor != null) {
            p.put("actor", actor);
        }
        RequestParts parts;
        try {
            parts = RequestParts.of(turns, config().maxLineBytes() - SocketClient.wireBytes(p) - ENVELOPE_BYTES);
        } catch (RequestParts.TooLarge e) {
            System.err.println("memoryd: turns[" + e.index + "] is " + e.bytes
                    + " bytes as JSON, more than one request carries; nothing was appended");
            return Main.USAGE;
        }
        List<ArrayNode> each = parts.parts().isEmpty() ? List.of((ArrayNode) turns) : parts.parts();
        try (SocketClient c = Main.connect(config())) {
            int sent = 0; // turns recorded by the parts before this one
            for (ArrayNode part : each) {
                p.set("turns", part);
                JsonNode reply;
                try {
                    reply = c.call("conversation.append", p);
                } catch (IOException e) {
                    if (sent == 0) {
                        throw e;
                    }
                    System.err.println("memoryd: the connection failed (" + e.getMessage() + "): turns["
                            + sent + ".." + (sent + part.size() - 1) + "] may or may not be recorded, turns[0.."
                            + (sent - 1) + "] are and the rest are not; read the conversation before appending again");
                    return Main.PROBLEMS;
                }
                if (reply.has("error")) {
                    int code = out.print(reply);
                    if (sent > 0) {
                        System.err.println(
                                "memoryd: turns[0.." + (sent - 1) + "] are recorded (the parts above); turns[" + sent
                                        + ".." + (turns.size() - 1) + "] are not");
                    }
                    return code;
                }
                if (out.on()) {
                    out.print(reply);
                } else {
                    JsonNode r = reply.get("result");
                    System.out.println("appended " + part.size() + " turn(s) to " + session + " in commit "
                            + r.path("commit").asText() + " (" + r.path("token").asText() + ")");
                }
                sent += part.size();
            }
            if (each.size() > 1 && !out.on()) {
                System.out.println("appended " + sent + " turns to " + session + " in " + each.size()
                        + " requests, a commit each");
            }
            return Main.OK;
        }
    }
}
