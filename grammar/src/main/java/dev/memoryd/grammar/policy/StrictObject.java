package dev.memoryd.grammar.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * Strict reader of one JSON object: every accessor names the field in its error, and
 * {@link #rejectUnknown()} refuses members that no accessor asked for.
 * A JSON {@code null} member counts as absent.
 */
final class StrictObject {
    private final JsonNode node;
    private final String path;
    private final Set<String> seen = new HashSet<>();

    private StrictObject(JsonNode node, String path) {
        this.node = node;
        this.path = path;
    }

    /** Wraps {@code node}, which must be a JSON object; {@code path} is its own path ("" for the root). */
    static StrictObject of(JsonNode node, String path) {
        if (node == null || !node.isObject()) {
            throw PolicyInputException.invalid(path.isEmpty() ? "$" : path, "must be a JSON object");
        }
        return new StrictObject(node, path);
    }

    String field(String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    /** The member, or {@code null} when absent or JSON null. */
    JsonNode get(String name) {
        seen.add(name);
        JsonNode v = node.get(name);
        return v == null || v.isNull() ? null : v;
    }

    JsonNode require(String name) {
        JsonNode v = get(name);
        if (v == null) {
            throw PolicyInputException.invalid(field(name), "is required");
        }
        return v;
    }

    String string(String name) {
        JsonNode v = require(name);
        if (!v.isTextual()) {
            throw PolicyInputException.invalid(field(name), "must be a string");
        }
        return v.textValue();
    }

    /** An integer in [min, max]; {@code dflt} when absent. JSON numbers with a fraction part (even .0) are refused. */
    int integer(String name, int min, int max, Integer dflt) {
        JsonNode v = dflt == null ? require(name) : get(name);
        if (v == null) {
            return dflt;
        }
        if (!v.isIntegralNumber()) {
            throw PolicyInputException.invalid(field(name), "must be an integer in [" + min + ", " + max + "]");
        }
        if (!v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
            throw PolicyInputException.invalid(field(name), "must be in [" + min + ", " + max + "], got " + v.asText());
        }
        return v.intValue();
    }

    /** A finite number in [min, max]; {@code dflt} when absent. */
    double number(String name, double min, double max, Double dflt) {
        JsonNode v = dflt == null ? require(name) : get(name);
        if (v == null) {
            return dflt;
        }
        if (!v.isNumber()) {
            throw PolicyInputException.invalid(field(name), "must be a number");
        }
        double d = v.doubleValue();
        if (!Double.isFinite(d)) {
            throw PolicyInputException.invalid(field(name), "must be finite");
        }
        if (d < min || d > max) {
            throw PolicyInputException.invalid(field(name), "must be in [" + min + ", " + max + "], got " + v.asText());
        }
        return d;
    }

    boolean bool(String name, boolean dflt) {
        JsonNode v = get(name);
        if (v == null) {
            return dflt;
        }
        if (!v.isBoolean()) {
            throw PolicyInputException.invalid(field(name), "must be true or false");
        }
        return v.booleanValue();
    }

    /** Refuses any member no accessor asked for. */
    void rejectUnknown() {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!seen.contains(name)) {
                throw PolicyInputException.invalid(field(name), "unknown field");
            }
        }
    }
}
