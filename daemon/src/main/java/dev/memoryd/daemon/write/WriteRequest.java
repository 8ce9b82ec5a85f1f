package dev.memoryd.daemon.write;

import java.util.List;

import dev.memoryd.grammar.Op;

/** One declaration: ops applied together or not at all, recorded as one commit. */
public record WriteRequest(
    List<Op> ops,
    String rationale,
    String actor,
    String idempotencyKey,
    String toolCallId) {
  public WriteRequest {
    ops = List.copyOf(ops);
    actor = actor == null || actor.isBlank() ? "agent" : actor;
  }
}
