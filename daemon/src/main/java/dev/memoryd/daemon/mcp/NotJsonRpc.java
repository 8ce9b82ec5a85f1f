package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;

/**
 * JSON-RPC 2.0's answer to a line that is not a message: {@code -32700} (parse error) for a line
 * that is not JSON, {@code -32600} (invalid request) for JSON that is not a request, a
 * notification or a response (a batch among them: MCP since 2025-06-18 has none). The reply
 * carries the line's {@code id} when it has a usable one (a string or an integer), so the client
 * can match it to the request it sent, and {@code null} otherwise, as the specification says. A
 * message whose {@code jsonrpc} is not {@code "2.0"} is not JSON-RPC 2.0 either: a request gets
 * {@code -32600} with its id (the SDK would answer it).
 *
 * <p>Stateless; safe from any thread.
 */
final class NotJsonRpc {
    static final int PARSE_ERROR = -32700;
    static final int INVALID_REQUEST = -32600;
    private static final ObjectMapper JSON = new ObjectMapper();

    private NotJsonRpc() {}

    /** Whether {@code m} says it is JSON-RPC 2.0 ({@code "jsonrpc": "2.0"}). */
    static boolean isVersion2(McpSchema.JSONRPCMessage m) {
        return McpSchema.JSONRPC_VERSION.equals(m.jsonrpc());
    }

    /** The error reply to a request that does not say it is JSON-RPC 2.0. */
    static McpSchema.JSONRPCResponse notVersion2(McpSchema.JSONRPCRequest r) {
        return McpSchema.JSONRPCResponse.error(
                r.id(),
                new McpSchema.JSONRPCResponse.JSONRPCError(
                        INVALID_REQUEST,
                        "Invalid Request: \"jsonrpc\" must be \"2.0\", not "
                                + (r.jsonrpc() == null ? "missing" : "\"" + r.jsonrpc() + "\""),
                        null));
    }

    /** The error reply to {@code line}, as one line of JSON ending with a newline. */
    static byte[] reply(String line) {
        ObjectNode reply = JSON.createObjectNode();
        reply.put("jsonrpc", "2.0");
        ObjectNode error = JSON.createObjectNode();
        JsonNode parsed;
        try {
            parsed = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            parsed = null;
        }
        JsonNode id = parsed != null ? parsed.get("id") : null;
        if (id != null && (id.isTextual() || id.isIntegralNumber())) {
            reply.set("id", id);
        } else {
            reply.putNull("id");
        }
        if (parsed == null) {
            error.put("code", PARSE_ERROR);
            error.put("message", "Parse error: the line is not JSON");
        } else {
            error.put("code", INVALID_REQUEST);
            error.put(
                    "message",
                    parsed.isArray()
                            ? "Invalid Request: a batch (a JSON array); send each message on a line of its own"
                            : "Invalid Request: not a JSON-RPC 2.0 request, notification or response");
        }
        reply.set("error", error);
        return (reply + "\n").getBytes(StandardCharsets.UTF_8);
    }
}
