package dev.memoryd.daemon.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What one call to the daemon came to, for callers that turn every outcome into something a
 * person or a model reads (the MCP shim, the console): a result, the daemon's refusal, no daemon
 * (nothing was sent), or a connection lost after the request may have been sent.
 */
public sealed interface DaemonReply {
    /** The daemon's {@code result}. */
    record Result(JsonNode value) implements DaemonReply {}

    /** The daemon's {@code error}: {@code reason} as the protocol names it, {@code data} its details. */
    record Refused(String reason, String message, JsonNode data) implements DaemonReply {}

    /** No daemon answers on the socket: nothing was sent. */
    record NoDaemon(String why) implements DaemonReply {}

    /** The connection failed after the request may have been sent: whether it took effect is unknown. */
    record Lost(String why) implements DaemonReply {}

    /** A reply line's object: its {@code result}, or its {@code error} as a refusal. */
    static DaemonReply of(JsonNode reply) {
        JsonNode err = reply.get("error");
        if (err != null) {
            JsonNode data = err.path("data");
            return new Refused(
                    data.path("reason").asText("internal"), err.path("message").asText(), data);
        }
        return new Result(reply.get("result"));
    }

    /** Connecting to {@code socket} failed with {@code e}. */
    static NoDaemon noDaemon(Path socket, IOException e) {
        return new NoDaemon(
                Files.exists(socket)
                        ? "nothing answers on " + socket + ": " + e.getMessage()
                        : "no socket at " + socket);
    }

    /** The connection failed with {@code e} once the request may have left. */
    static Lost lost(IOException e) {
        return new Lost(e.getMessage() == null ? e.toString() : e.getMessage());
    }
}
