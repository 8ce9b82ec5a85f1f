package dev.memoryd.daemon.rpc;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.grammar.Op;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the file grammar (§13, "Agent: must supply rationale and evidence tokens for material
 * edits") asks of an agent's {@code write} beyond each op's own shape: a rationale that is not
 * blank, and evidence tokens ({@code evidence_refs}) that each name a recorded event.
 *
 * <p>Checked at the protocol edge for the {@code write} method, before the declaration is
 * queued, so a refused write records nothing. Events are never removed from the ledger, so a
 * token that resolves here still resolves when the write is applied. memoryd's own
 * declarations (human capture, proposals, recovery, {@code declare}) do not pass here.
 * Stateless.
 */
final class AgentWriteCheck {
    /** Looks an {@code ev:} token up in the ledger (as the {@code resolve} method does). */
    @FunctionalInterface
    interface TokenResolver {
        Outcome<Event> resolve(String token) throws IOException;
    }

    private AgentWriteCheck() {}

    /** An {@code invalid_op} on field {@code rationale} when it is absent or blank; else null. */
    static Failure rationale(String rationale) {
        if (rationale != null && !rationale.isBlank()) {
            return null;
        }
        return new Failure(
                ErrorReason.INVALID_OP,
                "rationale is required for a write: say in a line why the ops are made"
                        + " (file grammar: an agent must supply rationale for its edits)",
                Map.of("field", "rationale"));
    }

    /**
     * The first evidence token of {@code ops} that does not resolve, as an {@code invalid_op}
     * with {@code op_index}, {@code field} ({@code ops[i].evidence_refs[j]}) and {@code token};
     * null when every token names a recorded event.
     */
    static Failure evidence(List<Op> ops, TokenResolver ledger) throws IOException {
        for (int i = 0; i < ops.size(); i++) {
            List<String> refs = ops.get(i).evidenceRefs();
            for (int j = 0; refs != null && j < refs.size(); j++) {
                String token = refs.get(j);
                if (ledger.resolve(token) instanceof Outcome.Failed<Event> f) {
                    String field = "ops[" + i + "].evidence_refs[" + j + "]";
                    Map<String, Object> d = new LinkedHashMap<>();
                    d.put("op_index", i);
                    d.put("field", field);
                    d.put("token", token);
                    return new Failure(
                            ErrorReason.INVALID_OP,
                            field + ": evidence token names no recorded event ("
                                    + f.failure().message() + ")",
                            d);
                }
            }
        }
        return null;
    }
}
