package dev.memoryd.daemon.rpc.catalogue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import java.util.List;

/**
 * One socket protocol method as the catalogue declares it.
 *
 * @param name the JSON-RPC method name ({@code drift.list})
 * @param group the namespace whose handler class serves it
 * @param summary one line, for tables
 * @param description one paragraph written for a model that has nothing else to go on
 * @param params the JSON Schema of the request's {@code params} object (an object schema that
 *     admits only the declared parameters)
 * @param returns the result in words
 * @param result the JSON Schema of the result, or null where the result is not structured
 * @param errors the {@code error.data.reason} values it answers besides those any method may
 * @param readOnly it changes nothing
 * @param destructive it may overwrite or remove recorded text (meaningless when read-only)
 * @param idempotent a repeat with the same params has no further effect
 */
public record MethodSpec(
        String name,
        String group,
        String summary,
        String description,
        ObjectNode params,
        String returns,
        ObjectNode result,
        List<ErrorReason> errors,
        boolean readOnly,
        boolean destructive,
        boolean idempotent) {

    /** The reasons every method may answer, whatever it declares. */
    public static final List<ErrorReason> ANY_METHOD =
            List.of(ErrorReason.INVALID_REQUEST, ErrorReason.UNAVAILABLE, ErrorReason.INTERNAL);

    /** The MCP tool name: the method name with {@code _} for {@code .} ({@code drift_list}). */
    public String toolName() {
        return name.replace('.', '_');
    }

    /** The parameter names, in declaration order. */
    public List<String> paramNames() {
        java.util.ArrayList<String> out = new java.util.ArrayList<>();
        params.path("properties").fieldNames().forEachRemaining(out::add);
        return out;
    }

    /** Whether {@code name} is one of its parameters. */
    public boolean takes(String param) {
        return params.path("properties").has(param);
    }
}
