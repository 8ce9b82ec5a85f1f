package dev.memoryd.daemon.rpc;

import java.util.Map;

import dev.memoryd.daemon.ErrorReason;
import dev.memoryd.daemon.Failure;

/**
 * What the file grammar (§13, "Agent: must supply rationale and evidence tokens for material
 * edits") asks of an agent's {@code write} beyond each op's own shape: a rationale that is not
 * blank.
 *
 * <p>Checked at the protocol edge for the {@code write} method, before the declaration is
 * queued, so a refused write records nothing. memoryd's own
 * declarations (human capture, proposals, recovery, {@code declare}) do not pass here.
 * Stateless.
 */
final class AgentWriteCheck {
  private AgentWriteCheck() {}

  /** An {@code invalid_op} on field {@code rationale} when it is absent or blank; else null. */
  static Failure rationale(String rationale) {
    if (rationale != null && !rationale.isBlank()) {
      return null;
    }
    return new Failure(ErrorReason.INVALID_OP, "rationale is required for a write: say in a line why the ops are made"
        + " (file grammar: an agent must supply rationale for its edits)", Map.of("field", "rationale"));
  }
}
