package dev.memoryd.grammar.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A chunk's structural contract for its instances (substrate spec language): {@code ordered},
 * {@code accepts} (type names resolved in the owning chunk's scope), {@code required} and
 * {@code unique} body keys, and {@code propagate} (enforced on instances' children instead of
 * direct placements). A chunk with a non-empty spec is an archetype. Immutable.
 */
public record Spec(
        boolean ordered, List<String> accepts, List<String> required, List<String> unique, boolean propagate) {
    public static final Spec EMPTY = new Spec(false, List.of(), List.of(), List.of(), false);
    static final Set<String> KEYS = Set.of("ordered", "accepts", "required", "unique", "propagate");

    public Spec {
        accepts = List.copyOf(accepts);
        required = List.copyOf(required);
        unique = List.copyOf(unique);
    }

    /** True when the spec constrains nothing (so the chunk is not an archetype). */
    public boolean isEmpty() {
        return !ordered && accepts.isEmpty() && required.isEmpty() && unique.isEmpty() && !propagate;
    }

    /** True when the spec checks something on a placement (propagate alone checks nothing). */
    public boolean constrains() {
        return ordered || !accepts.isEmpty() || !required.isEmpty() || !unique.isEmpty();
    }

    /** Thrown by {@link #fromJson} for a malformed spec; {@link #field()} names the offending key. */
    public static final class Invalid extends Exception {
        private final String field;

        Invalid(String field, String message) {
            super(message, null, false, false);
            this.field = field;
        }

        public String field() {
            return field;
        }
    }

    /** Parses a spec object; null or JSON null is the empty spec. Unknown keys are refused. */
    public static Spec fromJson(JsonNode n) throws Invalid {
        if (n == null || n.isNull()) {
            return EMPTY;
        }
        if (!n.isObject()) {
            throw new Invalid("", "spec must be an object");
        }
        for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) n::fields) {
            if (!KEYS.contains(e.getKey())) {
                throw new Invalid(
                        e.getKey(),
                        "unknown spec key '" + e.getKey() + "'; known: accepts, ordered, propagate, required, unique");
            }
        }
        return new Spec(
                bool(n, "ordered"),
                strings(n, "accepts"),
                strings(n, "required"),
                strings(n, "unique"),
                bool(n, "propagate"));
    }

    private static boolean bool(JsonNode n, String k) throws Invalid {
        JsonNode v = n.get(k);
        if (v == null || v.isNull()) {
            return false;
        }
        if (!v.isBoolean()) {
            throw new Invalid(k, k + " must be a boolean");
        }
        return v.asBoolean();
    }

    private static List<String> strings(JsonNode n, String k) throws Invalid {
        JsonNode v = n.get(k);
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (!v.isArray()) {
            throw new Invalid(k, k + " must be an array of strings");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode s : v) {
            if (!s.isTextual() || s.asText().isEmpty()) {
                throw new Invalid(k, k + " must be an array of non-empty strings");
            }
            if (!out.contains(s.asText())) {
                out.add(s.asText());
            }
        }
        return out;
    }

    /** The JSON form; keys with default values are left out, so the empty spec is {@code {}}. */
    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        if (ordered) {
            o.put("ordered", true);
        }
        if (!accepts.isEmpty()) {
            accepts.forEach(o.putArray("accepts")::add);
        }
        if (!required.isEmpty()) {
            required.forEach(o.putArray("required")::add);
        }
        if (!unique.isEmpty()) {
            unique.forEach(o.putArray("unique")::add);
        }
        if (propagate) {
            o.put("propagate", true);
        }
        return o;
    }
}
