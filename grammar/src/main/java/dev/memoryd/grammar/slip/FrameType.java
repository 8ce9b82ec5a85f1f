package dev.memoryd.grammar.slip;

import java.util.List;
import java.util.Optional;

/**
 * The SLIP frame types (slip-v0.1 §2 "Frame types").
 *
 * <p>Contract: the constants are declared in the spec's order and {@link #code()} is the
 * position in that list from 0 (TASK 0 … CONTROL 4), as docs/DESIGN.md fixes; codes never
 * change. Lookups return empty for an unknown code or name, never throw.
 */
public enum FrameType {
    /** Task definition / status. */
    TASK,
    /** Plan with steps and estimates. */
    PLAN,
    /** Observation about the environment. */
    OBSERVATION,
    /** Evaluation of something. */
    EVALUATION,
    /** Meta/protocol level. */
    CONTROL;

    private static final List<FrameType> BY_CODE = List.of(values());

    /** The wire code: position in the spec's list, from 0. */
    public int code() {
        return ordinal();
    }

    /** The frame type with this code, or empty. */
    public static Optional<FrameType> byCode(long code) {
        return code >= 0 && code < BY_CODE.size() ? Optional.of(BY_CODE.get((int) code)) : Optional.empty();
    }

    /** The frame type with this exact (upper-case) name, e.g. {@code TASK}, or empty. */
    public static Optional<FrameType> byName(String name) {
        for (FrameType f : BY_CODE) {
            if (f.name().equals(name)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }
}
