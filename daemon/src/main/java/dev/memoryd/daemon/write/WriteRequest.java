package dev.memoryd.daemon.write;

import dev.memoryd.grammar.Op;
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

    /** The same declaration, recording {@code p} (null: none) in its events. */
    public WriteRequest withProvenance(Provenance p) {
        return new WriteRequest(ops, mutation, rationale, actor, idempotencyKey, toolCallId, p, durability);
    }

    /** The same declaration, answered at {@code d} (null: {@link Durability#COMMIT}). */
    public WriteRequest withDurability(Durability d) {
        return new WriteRequest(ops, mutation, rationale, actor, idempotencyKey, toolCallId, provenance, d);
    }
}
