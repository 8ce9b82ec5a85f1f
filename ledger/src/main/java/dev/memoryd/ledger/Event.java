package dev.memoryd.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One ledger line. JSON member names are the snake_case of the components:
 * {@code seq, event_id, ts, branch, chain, actor, user_id, entity_type, entity_id, file_path,
 * op, section_anchor, before_hash, after_hash, payload, rationale, evidence_refs,
 * idempotency_key, tool_call_id, integrity{prev, line_hash, algo, salt_version}}. Every member
 * is always present; a null component is JSON null. {@code chain} (docs/DESIGN.md, "The
 * ledger") is the ULID fixed when the chain was created, so a line spliced in from another
 * ledger is recognisable even when it was signed with the same key.
 *
 * <p>The stored line is {@code JCS(toJson()) + "\n"}; {@code integrity.line_hash} is the
 * lowercase hex HMAC-SHA256, under the line key of {@code integrity.salt_version}, of the UTF-8
 * JCS form of {@code toJson()} with {@code integrity.line_hash} removed.
 *
 * <p>Immutable value, except that {@code payload} is a Jackson node that is not copied here:
 * do not mutate it ({@link #toJson()} returns a copy).
 */
public record Event(
        long seq,
        String eventId,
        String ts,
        String branch,
        String chain,
        String actor,
        String userId,
        String entityType,
        String entityId,
        String filePath,
        String op,
        String sectionAnchor,
        String beforeHash,
        String afterHash,
        JsonNode payload,
        String rationale,
        List<String> evidenceRefs,
        String idempotencyKey,
        String toolCallId,
        Integrity integrity) {

    static final List<String> FIELDS = List.of(
            "seq",
            "event_id",
            "ts",
            "branch",
            "chain",
            "actor",
            "user_id",
            "entity_type",
            "entity_id",
            "file_path",
            "op",
            "section_anchor",
            "before_hash",
            "after_hash",
            "payload",
            "rationale",
            "evidence_refs",
            "idempotency_key",
            "tool_call_id",
            "integrity");
    private static final Set<String> FIELD_SET = Set.copyOf(FIELDS);
    private static final List<String> INTEGRITY_FIELDS = List.of("prev", "line_hash", "algo", "salt_version");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    public Event {
        if (seq < 1) {
            throw new IllegalArgumentException("seq must be >= 1, got " + seq);
        }
        new EventId(Objects.requireNonNull(eventId, "event_id"));
        Objects.requireNonNull(ts, "ts");
        new BranchName(Objects.requireNonNull(branch, "branch"));
        new EventId(Objects.requireNonNull(chain, "chain")); // chain ids are ULIDs too
        Objects.requireNonNull(integrity, "integrity");
        if (payload != null && payload.isNull()) {
            payload = null; // one representation of JSON null
        }
        evidenceRefs = evidenceRefs == null ? null : List.copyOf(evidenceRefs);
    }

    /** The full JSON object of this line (a fresh tree). */
    public ObjectNode toJson() {
        return toJson(true);
    }

    /** The JSON object, with or without {@code integrity.line_hash} (the HMAC's input omits it). */
    ObjectNode toJson(boolean withLineHash) {
        ObjectNode o = NODES.objectNode();
        o.put("seq", seq);
        o.put("event_id", eventId);
        o.put("ts", ts);
        o.put("branch", branch);
        o.put("chain", chain);
        o.put("actor", actor);
        o.put("user_id", userId);
        o.put("entity_type", entityType);
        o.put("entity_id", entityId);
        o.put("file_path", filePath);
        o.put("op", op);
        o.put("section_anchor", sectionAnchor);
        o.put("before_hash", beforeHash);
        o.put("after_hash", afterHash);
        o.set("payload", payload == null ? NODES.nullNode() : payload.deepCopy());
        o.put("rationale", rationale);
        if (evidenceRefs == null) {
            o.putNull("evidence_refs");
        } else {
            ArrayNode refs = o.putArray("evidence_refs");
            evidenceRefs.forEach(refs::add);
        }
        o.put("idempotency_key", idempotencyKey);
        o.put("tool_call_id", toolCallId);
        ObjectNode in = o.putObject("integrity");
        in.put("prev", integrity.prev());
        if (withLineHash) {
            in.put("line_hash", integrity.lineHash());
        }
        in.put("algo", integrity.algo());
        in.put("salt_version", integrity.saltVersion());
        return o;
    }

    /**
     * Parses a line's JSON object strictly: every member must be present (a missing one is
     * named in the exception), no unknown member is allowed, and types must match.
     *
     * @throws IllegalArgumentException if {@code json} is not a well-formed event
     */
    public static Event fromJson(JsonNode json) {
        if (json == null || !json.isObject()) {
            throw new IllegalArgumentException("an event must be a JSON object");
        }
        for (String f : FIELDS) {
            if (!json.has(f)) {
                throw new IllegalArgumentException("event is missing field \"" + f + "\"");
            }
        }
        for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELD_SET.contains(f)) {
                throw new IllegalArgumentException("event has unknown field \"" + f + "\"");
            }
        }
        JsonNode seq = json.get("seq");
        if (!seq.isIntegralNumber() || !seq.canConvertToLong()) {
            throw new IllegalArgumentException("field \"seq\" must be an integer");
        }
        JsonNode in = json.get("integrity");
        if (!in.isObject()) {
            throw new IllegalArgumentException("field \"integrity\" must be an object");
        }
        for (String f : INTEGRITY_FIELDS) {
            if (!in.has(f)) {
                throw new IllegalArgumentException("event is missing field \"integrity." + f + "\"");
            }
        }
        if (in.size() != INTEGRITY_FIELDS.size()) {
            throw new IllegalArgumentException("field \"integrity\" has unknown members");
        }
        JsonNode sv = in.get("salt_version");
        if (!sv.isIntegralNumber() || !sv.canConvertToInt()) {
            throw new IllegalArgumentException("field \"integrity.salt_version\" must be an integer");
        }
        Integrity integrity = new Integrity(
                text(in, "prev", "integrity.prev"), text(in, "line_hash", "integrity.line_hash"),
                text(in, "algo", "integrity.algo"), sv.intValue());
        JsonNode refsNode = json.get("evidence_refs");
        List<String> refs = null;
        if (!refsNode.isNull()) {
            if (!refsNode.isArray()) {
                throw new IllegalArgumentException("field \"evidence_refs\" must be an array or null");
            }
            refs = new ArrayList<>(refsNode.size());
            for (JsonNode r : refsNode) {
                if (!r.isTextual()) {
                    throw new IllegalArgumentException("field \"evidence_refs\" must hold strings");
                }
                refs.add(r.textValue());
            }
        }
        JsonNode payload = json.get("payload");
        try {
            return new Event(
                    seq.longValue(),
                    text(json, "event_id"),
                    text(json, "ts"),
                    text(json, "branch"),
                    text(json, "chain"),
                    text(json, "actor"),
                    text(json, "user_id"),
                    text(json, "entity_type"),
                    text(json, "entity_id"),
                    text(json, "file_path"),
                    text(json, "op"),
                    text(json, "section_anchor"),
                    text(json, "before_hash"),
                    text(json, "after_hash"),
                    payload.isNull() ? null : payload,
                    text(json, "rationale"),
                    refs,
                    text(json, "idempotency_key"),
                    text(json, "tool_call_id"),
                    integrity);
        } catch (NullPointerException e) {
            // a required member is JSON null; report it as malformed input, not a programming error
            throw new IllegalArgumentException("field \"" + e.getMessage() + "\" must not be null", e);
        }
    }

    private static String text(JsonNode o, String field) {
        return text(o, field, field);
    }

    private static String text(JsonNode o, String field, String label) {
        JsonNode v = o.get(field);
        if (v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("field \"" + label + "\" must be a string or null");
        }
        return v.textValue();
    }

    /** The evidence token of this event ({@code ev:<ts to the second>-<event_id>}). */
    public EvidenceToken token() {
        return EvidenceToken.ofTimestamp(ts, new EventId(eventId));
    }
}
