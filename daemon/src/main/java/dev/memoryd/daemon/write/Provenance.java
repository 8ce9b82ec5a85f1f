package dev.memoryd.daemon.write;

import java.util.List;

/**
 * Where a piece of knowledge came from (Slices v1, "Provenance"): who wrote it ({@code agent}, the
 * request's actor), in which session ({@code session}), how it was acquired ({@code source}, one
 * of {@link #SOURCES}) and optionally how reliable it is ({@code confidence}, 0 to 1) and why
 * ({@code context}). Recorded as {@code payload.provenance} of every event of a declaration and,
 * for a JSONL row, as the row's {@code _meta.provenance}. Optional members are null when not given
 * and are then left out of the JSON form, which {@link ProvenanceJson} writes.
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
}
