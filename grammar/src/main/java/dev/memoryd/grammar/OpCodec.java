package dev.memoryd.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * JSON form of ops (snake_case fields as in docs/DESIGN.md).
 *
 * <p>Contract: {@link #parse} never throws; it rejects unknown ops and unknown, missing
 * or mistyped fields, and strings that are not memory text ({@link TextRules#notMemoryText}: a
 * lone surrogate, or a control character other than tab and newline), with {@code invalid_op}
 * naming the field, and ops that memoryd never allows
 * ({@value #PROHIBITED_LIST}) with {@code prohibited}. A JSON {@code null} counts as
 * absent. {@link #toJson} writes a form that {@link #parse} turns back into an equal op
 * (it is the ledger payload replay redoes); optional fields that are null or empty are
 * left out.
 */
public final class OpCodec {

    static final String PROHIBITED_LIST =
            "delete_file, delete_entity, remove_section, rename_section, edit_frontmatter, rename_field, set_id, remove_anchor";
    private static final Set<String> PROHIBITED = Set.of(PROHIBITED_LIST.split(", "));
    private static final List<String> OPS = List.of(
            "create_entity", "replace_section", "append_section", "append_item", "curate_items", "tombstone_section");
    private static final Set<String> COMMON = Set.of("op", "before_hash", "evidence_refs", "override_rationale");
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private OpCodec() {}

    /** Thrown internally to unwind on the first bad field. */
    private static final class Bad extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String field;

        Bad(String field, String message) {
            super(message, null, false, false);
            this.field = field;
        }
    }

    /** Parses one op object a client sent: every string must be memory text. */
    public static OpParse parse(JsonNode json) {
        return parse(json, new Fields(TextRules::notMemoryText));
    }

    /**
     * Parses one op object read back from the ledger (replay, recovery): its strings need only be
     * well-formed Unicode. A line recorded before a text rule was tightened was accepted then, and
     * replay must reproduce what it wrote, not refuse it now.
     */
    public static OpParse parseRecorded(JsonNode json) {
        return parse(json, new Fields(TextRules::malformed));
    }

    private static OpParse parse(JsonNode json, Fields f) {
        if (json == null || !json.isObject()) {
            return new OpParse.Invalid("invalid_op", "", "an op must be a JSON object");
        }
        JsonNode opNode = json.get("op");
        if (opNode == null || opNode.isNull()) {
            return new OpParse.Invalid("invalid_op", "op", "missing required field 'op'");
        }
        if (!opNode.isTextual()) {
            return new OpParse.Invalid("invalid_op", "op", "field 'op' must be a string");
        }
        String name = opNode.asText();
        if (PROHIBITED.contains(name)) {
            return new OpParse.Invalid(
                    "prohibited",
                    "op",
                    "op '" + name
                            + "' is prohibited: memoryd never deletes files, removes sections or anchors, or edits identity fields");
        }
        if (!OPS.contains(name)) {
            return new OpParse.Invalid(
                    "invalid_op", "op", "unknown op '" + name + "'; expected one of " + String.join(", ", OPS));
        }
        try {
            return new OpParse.Ok(
                    switch (name) {
                        case "create_entity" -> {
                            fields(json, "user_id", "entity_type", "entity_id", "title", "participants", "slice_ids");
                            yield new CreateEntity(
                                    f.str(json, "user_id", true),
                                    f.str(json, "entity_type", true),
                                    f.str(json, "entity_id", false),
                                    f.str(json, "title", true),
                                    f.strs(json, "participants", false),
                                    f.strs(json, "slice_ids", false),
                                    f.str(json, "before_hash", false),
                                    f.strs(json, "evidence_refs", false),
                                    f.str(json, "override_rationale", false));
                        }
                        case "replace_section" -> {
                            fields(json, "path", "section", "content");
                            yield new ReplaceSection(
                                    f.path(json),
                                    f.str(json, "section", true),
                                    f.str(json, "content", true),
                                    f.str(json, "before_hash", false),
                                    f.strs(json, "evidence_refs", false),
                                    f.str(json, "override_rationale", false));
                        }
                        case "append_section" -> {
                            fields(json, "path", "section", "content");
                            yield new AppendSection(
                                    f.path(json),
                                    f.str(json, "section", true),
                                    f.str(json, "content", true),
                                    f.str(json, "before_hash", false),
                                    f.strs(json, "evidence_refs", false),
                                    f.str(json, "override_rationale", false));
                        }
                        case "append_item" -> {
                            fields(json, "path", "section", "item");
                            yield new AppendItem(
                                    f.path(json),
                                    f.str(json, "section", true),
                                    f.str(json, "item", true),
                                    f.str(json, "before_hash", false),
                                    f.strs(json, "evidence_refs", false),
                                    f.str(json, "override_rationale", false));
                        }
                        case "curate_items" -> {
                            fields(json, "path", "section", "remove", "merge", "reason");
                            yield new CurateItems(
                                    f.path(json),
                                    f.str(json, "section", true),
                                    f.strs(json, "remove", false),
                                    f.merges(json),
                                    f.str(json, "reason", true),
                                    f.str(json, "before_hash", false),
                                    f.strs(json, "evidence_refs", false),
                                    f.str(json, "override_rationale", false));
                        }
                        case "tombstone_section" -> {
                            fields(json, "path", "section", "reason");
                            yield new TombstoneSection(
                                    f.path(json),
                                    f.str(json, "section", true),
                                    f.str(json, "reason", true),
                                    f.str(json, "before_hash", false),
                                    f.strs(json, "evidence_refs", false),
                                    f.str(json, "override_rationale", false));
                        }
                        default -> throw new IllegalStateException(name);
                    });
        } catch (Bad b) {
            return new OpParse.Invalid("invalid_op", b.field, b.getMessage());
        }
    }

    private static void fields(JsonNode json, String... allowed) {
        Set<String> ok = Set.of(allowed);
        for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!ok.contains(f) && !COMMON.contains(f)) {
                throw new Bad(
                        f, "unknown field '" + f + "' for op '" + json.get("op").asText() + "'");
            }
        }
    }

    /** Reads an op's fields, each string held to {@code rule} (why a string is refused, or null). */
    private record Fields(java.util.function.UnaryOperator<String> rule) {

        String str(JsonNode json, String field, boolean required) {
            JsonNode n = json.get(field);
            if (n == null || n.isNull()) {
                if (required) {
                    throw new Bad(field, "missing required field '" + field + "'");
                }
                return null;
            }
            if (!n.isTextual()) {
                throw new Bad(field, "field '" + field + "' must be a string");
            }
            return text(n.asText(), field);
        }

        /** {@code v}, if it is memory text. */
        String text(String v, String field) {
            String why = rule.apply(v);
            if (why != null) {
                throw new Bad(field, "field '" + field + "' " + why);
            }
            return v;
        }

        List<String> strs(JsonNode json, String field, boolean required) {
            return strList(json.get(field), field, required);
        }

        List<String> strList(JsonNode n, String field, boolean required) {
            if (n == null || n.isNull()) {
                if (required) {
                    throw new Bad(field, "missing required field '" + field + "'");
                }
                return List.of();
            }
            if (!n.isArray()) {
                throw new Bad(field, "field '" + field + "' must be an array of strings");
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < n.size(); i++) {
                if (!n.get(i).isTextual()) {
                    throw new Bad(field + "[" + i + "]", "field '" + field + "[" + i + "]' must be a string");
                }
                out.add(text(n.get(i).asText(), field + "[" + i + "]"));
            }
            return out;
        }

        RepoPath path(JsonNode json) {
            String p = str(json, "path", true);
            try {
                return RepoPath.of(p);
            } catch (IllegalArgumentException e) {
                throw new Bad("path", "invalid path: " + e.getMessage());
            }
        }

        List<CurateItems.Merge> merges(JsonNode json) {
            JsonNode n = json.get("merge");
            if (n == null || n.isNull()) {
                return List.of();
            }
            if (!n.isArray()) {
                throw new Bad("merge", "field 'merge' must be an array of {items, into}");
            }
            List<CurateItems.Merge> out = new ArrayList<>();
            for (int i = 0; i < n.size(); i++) {
                JsonNode m = n.get(i);
                String at = "merge[" + i + "]";
                if (!m.isObject()) {
                    throw new Bad(at, "field '" + at + "' must be an object {items, into}");
                }
                for (Iterator<String> it = m.fieldNames(); it.hasNext(); ) {
                    String f = it.next();
                    if (!f.equals("items") && !f.equals("into")) {
                        throw new Bad(at + "." + f, "unknown field '" + at + "." + f + "'");
                    }
                }
                List<String> items = strList(m.get("items"), at + ".items", true);
                JsonNode into = m.get("into");
                if (into == null || into.isNull()) {
                    throw new Bad(at + ".into", "missing required field '" + at + ".into'");
                }
                if (!into.isTextual()) {
                    throw new Bad(at + ".into", "field '" + at + ".into' must be a string");
                }
                out.add(new CurateItems.Merge(items, text(into.asText(), at + ".into")));
            }
            return out;
        }
    }

    /** The JSON form of an op; {@code parse(toJson(op))} yields an equal op. */
    public static ObjectNode toJson(Op op) {
        ObjectNode o = F.objectNode();
        o.put("op", op.opName());
        if (op instanceof CreateEntity c) {
            o.put("user_id", c.userId());
            o.put("entity_type", c.entityType());
            putOpt(o, "entity_id", c.entityId());
            o.put("title", c.title());
            putList(o, "participants", c.participants());
            putList(o, "slice_ids", c.sliceIds());
        } else if (op instanceof ReplaceSection r) {
            o.put("path", r.path().value());
            o.put("section", r.section());
            o.put("content", r.content());
        } else if (op instanceof AppendSection a) {
            o.put("path", a.path().value());
            o.put("section", a.section());
            o.put("content", a.content());
        } else if (op instanceof AppendItem a) {
            o.put("path", a.path().value());
            o.put("section", a.section());
            o.put("item", a.item());
        } else if (op instanceof CurateItems c) {
            o.put("path", c.path().value());
            o.put("section", c.section());
            putList(o, "remove", c.remove());
            if (!c.merge().isEmpty()) {
                ArrayNode ms = o.putArray("merge");
                for (CurateItems.Merge m : c.merge()) {
                    ObjectNode mo = ms.addObject();
                    ArrayNode items = mo.putArray("items");
                    m.items().forEach(items::add);
                    mo.put("into", m.into());
                }
            }
            o.put("reason", c.reason());
        } else if (op instanceof TombstoneSection t) {
            o.put("path", t.path().value());
            o.put("section", t.section());
            o.put("reason", t.reason());
        }
        putOpt(o, "before_hash", op.beforeHash());
        putList(o, "evidence_refs", op.evidenceRefs());
        putOpt(o, "override_rationale", op.overrideRationale());
        return o;
    }

    private static void putOpt(ObjectNode o, String f, String v) {
        if (v != null) {
            o.put(f, v);
        }
    }

    private static void putList(ObjectNode o, String f, List<String> v) {
        if (!v.isEmpty()) {
            ArrayNode a = o.putArray(f);
            v.forEach(a::add);
        }
    }
}
