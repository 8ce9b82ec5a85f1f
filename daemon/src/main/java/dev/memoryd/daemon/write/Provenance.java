package dev.memoryd.daemon.write;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Where a piece of knowledge came from (Slices v1, "Provenance"): who wrote it ({@code agent}, the
 * request's actor), in which session ({@code session}), how it was acquired ({@code source}, one
 * of {@link #SOURCES}) and optionally how reliable it is ({@code confidence}, 0 to 1) and why
 * ({@code context}). Recorded as {@code payload.provenance} of every event of a declaration and,
 * for a JSONL row, as the row's {@code _meta.provenance}. Optional members are null when not given
 * and are then left out of the JSON form.
 */
public record Provenance(String agent, String session, String source, Double confidence, String context) {
    /** The {@code source} values Slices v1 names. */
    public static final List<String> SOURCES = List.of("user-statement", "inference", "observation");

    public Provenance {
        if (agent == null || agent.isBlank()) {
            throw new IllegalArgumentException("provenance needs an agent");
        }
        if (source != null && !SOURCES.contains(source)) {
            throw new IllegalArgumentException("source must be one of " + SOURCES + ", not '" + source + "'");
        }
        if (confidence != null && !(confidence >= 0 && confidence <= 1)) {
            throw new IllegalArgumentException("confidence must be a number from 0 to 1");
        }
    }

    /** The JSON form, members in the order of the spec's table; absent ones left out. */
    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("agent", agent);
        if (session != null) {
            o.put("session", session);
        }
        if (source != null) {
            o.put("source", source);
        }
        if (confidence != null) {
            // An integral value as an integer: the ledger's RFC 8785 form writes 1.0 as 1, which replay
            // reads back as an integer, so a row holding 1.0 would not replay to its own bytes.
            if (confidence == Math.rint(confidence)) {
                o.put("confidence", confidence.longValue());
            } else {
                o.put("confidence", confidence);
            }
        }
        if (context != null) {
            o.put("context", context);
        }
        return o;
    }
}
