package dev.memoryd.daemon.write;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.jcs.Jcs;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * One declaration: applied together or not at all, recorded as one commit. Either grammar
 * {@code ops}, or one extension {@code mutation} (then {@code ops} is empty). {@code provenance},
 * when not null, is recorded as {@code payload.provenance} of each of its events. {@code durability}
 * says when the reply comes (null: {@link Durability#COMMIT}).
 */
public record WriteRequest(
        List<Op> ops,
        Mutation mutation,
        String rationale,
        String actor,
        String idempotencyKey,
        String toolCallId,
        Provenance provenance,
        Durability durability) {
    public WriteRequest {
        ops = List.copyOf(ops);
        durability = durability == null ? Durability.COMMIT : durability;
        actor = actor == null || actor.isBlank() ? "agent" : actor;
        if (ops.isEmpty() == (mutation == null)) {
            throw new IllegalArgumentException("a declaration has either ops or one mutation");
        }
    }

    public WriteRequest(
            List<Op> ops,
            Mutation mutation,
            String rationale,
            String actor,
            String idempotencyKey,
            String toolCallId,
            Provenance provenance) {
        this(ops, mutation, rationale, actor, idempotencyKey, toolCallId, provenance, Durability.COMMIT);
    }

    public WriteRequest(
            List<Op> ops, Mutation mutation, String rationale, String actor, String idempotencyKey, String toolCallId) {
        this(ops, mutation, rationale, actor, idempotencyKey, toolCallId, null);
    }

    public WriteRequest(List<Op> ops, String rationale, String actor, String idempotencyKey, String toolCallId) {
        this(ops, null, rationale, actor, idempotencyKey, toolCallId, null);
    }

    public static WriteRequest of(Mutation m, String rationale, String actor) {
        return new WriteRequest(List.of(), m, rationale, actor, null, null, null);
    }

    /** The field of {@code payload.decl} that records {@link #fingerprint} for a declaration sent with an idempotency key. */
    static final String FINGERPRINT = "request_sha256";

    /**
     * What a repeat under the same idempotency key must send again, as a SHA-256 (hex) of the
     * canonical JSON (RFC 8785) of {@code {ops, rationale}}: the ops as they are recorded in events
     * ({@link OpCodec#toJson}); null for a mutation.
     */
    public String fingerprint() {
        if (mutation != null) {
            return null;
        }
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        ArrayNode a = n.putArray("ops");
        for (Op o : ops) {
            a.add(OpCodec.toJson(o));
        }
        n.put("rationale", rationale);
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Jcs.canonicalBytes(n)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The {@link #fingerprint} an event's payload records, or null when it records none. */
    static String recordedFingerprint(JsonNode payload) {
        JsonNode f = payload == null ? null : payload.path("decl").get(FINGERPRINT);
        return f != null && f.isTextual() ? f.asText() : null;
    }

    /** The same declaration, recording {@code p} (null: none) in its events. */
    public WriteRequest withProvenance(Provenance p) {
        return new WriteRequest(ops, mutation, rationale, actor, idempotencyKey, toolCallId, p, durability);
    }

    /** The same declaration, answered at {@code d} (null: {@link Durability#COMMIT}). */
    public WriteRequest withDurability(Durability d) {
        return new WriteRequest(ops, mutation, rationale, actor, idempotencyKey, toolCallId, provenance, d);
    }
}
