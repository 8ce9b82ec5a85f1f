package dev.memoryd.daemon.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.Optional;

/**
 * The params a tool call and a resource request must carry, checked before the SDK sees the
 * request, so that a client's misuse is JSON-RPC's invalid params ({@code -32602}) naming what is
 * wrong. The SDK (2.0.1) answers {@code tools/call} whose {@code arguments} is no object with an
 * internal error ({@code -32603}) quoting Jackson, one without a {@code name} as an unknown tool
 * named "invalid_tool_name", {@code resources/read} with no {@code uri} as "resource not found"
 * ({@code -32002}), and takes {@code resources/subscribe} for any URI at all. Here {@code
 * tools/call} needs {@code params.name}, a string, and {@code params.arguments}, when given, an
 * object; {@code resources/read}, {@code resources/subscribe} and {@code resources/unsubscribe}
 * need {@code params.uri}, a string, and a subscription a {@code memoryd://} URI that names a path
 * (the only resources this server has; the file need not exist yet, it may be created later).
 * Stateless.
 */
final class RequestParams {
    private RequestParams() {}

    /** The error reply to {@code m}, or empty when its params are usable (or it is not one of these requests). */
    static Optional<McpSchema.JSONRPCResponse> refusal(McpSchema.JSONRPCMessage m) {
        if (!(m instanceof McpSchema.JSONRPCRequest r)) {
            return Optional.empty();
        }
        Map<?, ?> params = r.params() instanceof Map<?, ?> p ? p : Map.of();
        if (McpSchema.METHOD_TOOLS_CALL.equals(r.method())) {
            if (!(params.get("name") instanceof String)) {
                return invalid(r, "tools/call needs params.name, a string: the tool to call (tools/list lists them)");
            }
            Object arguments = params.get("arguments");
            if (arguments != null && !(arguments instanceof Map<?, ?>)) {
                return invalid(r, "params.arguments must be an object of the tool's parameters (its inputSchema)");
            }
            return Optional.empty();
        }
        boolean read = McpSchema.METHOD_RESOURCES_READ.equals(r.method());
        boolean subscription = McpSchema.METHOD_RESOURCES_SUBSCRIBE.equals(r.method())
                || McpSchema.METHOD_RESOURCES_UNSUBSCRIBE.equals(r.method());
        if (!read && !subscription) {
            return Optional.empty();
        }
        if (!(params.get("uri") instanceof String u)) {
            return invalid(r, r.method() + " needs params.uri, a string (memoryd://<path>)");
        }
        if (subscription && ResourceUris.path(u) == null) {
            return invalid(
                    r, "params.uri " + u + " is not a memory file's URI: only memoryd://<path> can be subscribed to");
        }
        return Optional.empty();
    }

    private static Optional<McpSchema.JSONRPCResponse> invalid(McpSchema.JSONRPCRequest r, String message) {
        return Optional.of(McpSchema.JSONRPCResponse.error(
                r.id(),
                new McpSchema.JSONRPCResponse.JSONRPCError(
                        McpSchema.ErrorCodes.INVALID_PARAMS, "Invalid params: " + message, null)));
    }
}
