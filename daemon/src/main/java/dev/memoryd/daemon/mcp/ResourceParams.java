package dev.memoryd.daemon.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code uri} a resource request must carry, checked before the SDK sees the request. The
 * SDK (2.0.1) answers {@code resources/read} with no {@code uri} as "resource not found"
 * ({@code -32002}) instead of JSON-RPC's invalid params, and takes {@code resources/subscribe}
 * for any URI at all; here {@code resources/read}, {@code resources/subscribe} and {@code
 * resources/unsubscribe} need {@code params} to be an object whose {@code uri} is a string, and
 * a subscription a {@code memoryd://} URI that names a path (the only resources this server has;
 * the file need not exist yet, it may be created later). Stateless.
 */
final class ResourceParams {
    private ResourceParams() {}

    /** The error reply to {@code m}, or empty when it is not a resource request or its {@code uri} is usable. */
    static Optional<McpSchema.JSONRPCResponse> refusal(McpSchema.JSONRPCMessage m) {
        if (!(m instanceof McpSchema.JSONRPCRequest r)) {
            return Optional.empty();
        }
        boolean read = McpSchema.METHOD_RESOURCES_READ.equals(r.method());
        boolean subscription = McpSchema.METHOD_RESOURCES_SUBSCRIBE.equals(r.method())
                || McpSchema.METHOD_RESOURCES_UNSUBSCRIBE.equals(r.method());
        if (!read && !subscription) {
            return Optional.empty();
        }
        Object uri = r.params() instanceof Map<?, ?> p ? p.get("uri") : null;
        if (!(uri instanceof String u)) {
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
