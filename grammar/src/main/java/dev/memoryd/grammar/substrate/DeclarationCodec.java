package dev.memoryd.grammar.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Reads a {@code declare} request's {@code chunks}, {@code placements} and {@code removals} into a
 * {@link Declaration}. Shape errors are values naming the field ({@code chunks[2].spec.accepts}).
 * New chunks get their ids from the caller's supplier, so parsing stays free of clocks and I/O.
 *
 * <pre>
 * chunks:     [{ref?, id?, name?, spec?, body?, placements?: [{scope, type?, seq?}]}]
 * placements: [{chunk, scope, type?: "instance"|"relates" (default instance), seq?}]
 * removals:   [{chunk, scope?}]
 * </pre>
 */
public final class DeclarationCodec {
    private DeclarationCodec() {}

    /** The outcome of parsing. */
    public sealed interface Parse {
        record Ok(Declaration declaration) implements Parse {}

        record Invalid(String field, String message) implements Parse {}
    }

    private static final class Bad extends Exception {
        final String field;

        Bad(String field, String message) {
            super(message, null, false, false);
            this.field = field;
        }
    }

    public static Parse parse(JsonNode chunks, JsonNode placements, JsonNode removals, Supplier<String> newId) {
        try {
            List<Declaration.ChunkDecl> cs = new ArrayList<>();
            List<Declaration.PlacementDecl> ps = new ArrayList<>();
            List<Declaration.Removal> rs = new ArrayList<>();
            int i = 0;
            for (JsonNode c : array(chunks, "chunks")) {
                String f = "chunks[" + i++ + "]";
                object(c, f, Set.of("ref", "id", "name", "spec", "body", "placements"));
                String ref = text(c, "ref", f, false);
                String id = text(c, "id", f, false);
                if (ref != null && id != null) {
                    throw new Bad(f, f + ": give ref (a new chunk) or id (an existing one), not both");
                }
                boolean create = id == null;
                if (create) {
                    id = newId.get();
                }
                boolean nameSet = c.has("name");
                String name = text(c, "name", f, false);
                if (name != null && (name.isBlank() || name.contains("/"))) {
                    throw new Bad(f + ".name", f + ".name must be non-blank and must not contain '/'");
                }
                Spec spec = null;
                if (c.has("spec")) {
                    try {
                        spec = Spec.fromJson(c.get("spec"));
                    } catch (Spec.Invalid e) {
                        throw new Bad(
                                f + ".spec" + (e.field().isEmpty() ? "" : "." + e.field()),
                                f + ".spec: " + e.getMessage());
                    }
                }
                ObjectNode body = null;
                if (c.has("body") && !c.get("body").isNull()) {
                    if (!c.get("body").isObject()) {
                        throw new Bad(f + ".body", f + ".body must be a JSON object");
                    }
                    body = (ObjectNode) c.get("body").deepCopy();
                }
                if (create && body == null) {
                    body = JsonNodeFactory.instance.objectNode();
                }
                cs.add(new Declaration.ChunkDecl(ref, id, create, name, nameSet, spec, body));
                int j = 0;
                for (JsonNode p : array(c.get("placements"), f + ".placements")) {
                    String pf = f + ".placements[" + j++ + "]";
                    object(p, pf, Set.of("scope", "type", "seq"));
                    ps.add(new Declaration.PlacementDecl(id, text(p, "scope", pf, true), type(p, pf), seq(p, pf)));
                }
            }
            i = 0;
            for (JsonNode p : array(placements, "placements")) {
                String f = "placements[" + i++ + "]";
                object(p, f, Set.of("chunk", "scope", "type", "seq"));
                ps.add(new Declaration.PlacementDecl(
                        text(p, "chunk", f, true), text(p, "scope", f, true), type(p, f), seq(p, f)));
            }
            i = 0;
            for (JsonNode r : array(removals, "removals")) {
                String f = "removals[" + i++ + "]";
                object(r, f, Set.of("chunk", "scope"));
                rs.add(new Declaration.Removal(text(r, "chunk", f, true), text(r, "scope", f, false)));
            }
            if (cs.isEmpty() && ps.isEmpty() && rs.isEmpty()) {
                throw new Bad("chunks", "a declaration needs at least one of chunks, placements, removals");
            }
            return new Parse.Ok(new Declaration(cs, ps, rs));
        } catch (Bad e) {
            return new Parse.Invalid(e.field, e.getMessage());
        }
    }

    private static Iterable<JsonNode> array(JsonNode n, String f) throws Bad {
        if (n == null || n.isNull()) {
            return List.of();
        }
        if (!n.isArray()) {
            throw new Bad(f, f + " must be an array");
        }
        return n;
    }

    private static void object(JsonNode n, String f, Set<String> keys) throws Bad {
        if (!n.isObject()) {
            throw new Bad(f, f + " must be an object");
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!keys.contains(k)) {
                throw new Bad(
                        f + "." + k,
                        f + ": unknown field '" + k + "'; expected "
                                + String.join(", ", new java.util.TreeSet<>(keys)));
            }
        }
    }

    private static String text(JsonNode n, String k, String f, boolean required) throws Bad {
        JsonNode v = n.get(k);
        if (v == null || v.isNull()) {
            if (required) {
                throw new Bad(f + "." + k, f + "." + k + " is required");
            }
            return null;
        }
        if (!v.isTextual() || v.asText().isEmpty()) {
            throw new Bad(f + "." + k, f + "." + k + " must be a non-empty string");
        }
        return v.asText();
    }

    private static PlacementType type(JsonNode n, String f) throws Bad {
        String t = text(n, "type", f, false);
        if (t == null) {
            return PlacementType.INSTANCE;
        }
        return PlacementType.parse(t)
                .orElseThrow(() -> new Bad(f + ".type", f + ".type must be instance or relates, not " + t));
    }

    private static Long seq(JsonNode n, String f) throws Bad {
        JsonNode v = n.get("seq");
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw new Bad(f + ".seq", f + ".seq must be a non-negative integer");
        }
        return v.asLong();
    }
}
