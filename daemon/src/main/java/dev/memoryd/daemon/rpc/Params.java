package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/** Reading a request's params: each check names the parameter and the rule it broke. */
final class Params {
    private Params() {}

    /** Refuses a parameter not in {@code allowed}. */
    static void only(ObjectNode p, String... allowed) throws BadRequest {
        Set<String> ok = Set.of(allowed);
        for (Iterator<String> it = p.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!ok.contains(f)) {
                throw new BadRequest(
                        ErrorReason.INVALID_REQUEST,
                        "unknown parameter '" + f + "'"
                                + (allowed.length == 0
                                        ? "; this method takes none"
                                        : "; expected " + String.join(", ", allowed)));
            }
        }
    }

    static String str(ObjectNode p, String name, boolean required) throws BadRequest {
        JsonNode n = p.get(name);
        if (n == null || n.isNull()) {
            if (required) {
                throw new BadRequest(ErrorReason.INVALID_REQUEST, "missing parameter '" + name + "'");
            }
            return null;
        }
        if (!n.isTextual()) {
            throw new BadRequest(ErrorReason.INVALID_REQUEST, "parameter '" + name + "' must be a string");
        }
        return n.asText();
    }

    static int intParam(ObjectNode p, String name, int min, int max) throws BadRequest {
        JsonNode n = p.get(name);
        if (!n.isIntegralNumber() || n.asLong() < min || n.asLong() > max) {
            throw new BadRequest(
                    ErrorReason.INVALID_REQUEST,
                    "parameter '" + name + "' must be an integer in [" + min + ", " + max + "]");
        }
        return n.asInt();
    }

    static List<String> strings(ObjectNode p, String name) throws BadRequest {
        JsonNode n = p.get(name);
        List<String> out = new ArrayList<>();
        if (n == null || n.isNull()) {
            return out;
        }
        if (!n.isArray()) {
            throw new BadRequest(ErrorReason.INVALID_REQUEST, "parameter '" + name + "' must be an array of strings");
        }
        for (JsonNode x : n) {
            if (!x.isTextual() || x.asText().isEmpty()) {
                throw new BadRequest(
                        ErrorReason.INVALID_REQUEST, "parameter '" + name + "' must be an array of non-empty strings");
            }
            out.add(x.asText());
        }
        return out;
    }
}
