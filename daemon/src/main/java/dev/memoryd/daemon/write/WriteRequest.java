package dev.memoryd.daemon.write;

import java.util.List;

import dev.memoryd.grammar.Op;

/**
 * One declaration: applied together or not at all, recorded as one commit. Either grammar
 * {@code ops}, or one extension {@code mutation} (then {@code ops} is empty).
 */
public record WriteRequest(
    List<Op> ops,
    Mutation mutation,
    String rationale,
    String actor,
    String idempotencyKey,
    String toolCallId) {
  public WriteRequest {
    ops = List.copyOf(ops);
    actor = actor == null || actor.isBlank() ? "agent" : actor;
    if (ops.isEmpty() == (mutation == null)) {
      throw new IllegalArgumentException("a declaration has either ops or one mutation");
    }
  }

  public WriteRequest(List<Op> ops, String rationale, String actor, String idempotencyKey,
      String toolCallId) {
    this(ops, null, rationale, actor, idempotencyKey, toolCallId);
  }

  public static WriteRequest of(Mutation m, String rationale, String actor) {
    return new WriteRequest(List.of(), m, rationale, actor, null, null);
  }
}
