package dev.memoryd.grammar.slip;

import java.util.List;
import java.util.Optional;

/**
 * The closed set of SLIP speech acts (slip-v0.1 §2 "Acts").
 *
 * <p>Contract: the constants are declared in the spec's order and {@link #code()} is the
 * position in that list from 0 (OBSERVE 0 … META 10), as docs/DESIGN.md fixes; codes never
 * change. Lookups return empty for an unknown code or name, never throw.
 */
public enum Act {
    /** Report new info about world/state. */
    OBSERVE,
    /** Derived info / belief. */
    INFORM,
    /** Request information. */
    ASK,
    /** Request a task/operation. */
    REQUEST,
    /** Propose a plan/option. */
    PROPOSE,
    /** Commit to a plan/task. */
    COMMIT,
    /** Accept a plan/request. */
    ACCEPT,
    /** Reject a plan/request. */
    REJECT,
    /** Evaluate a plan/result. */
    EVAL,
    /** Report an error. */
    ERROR,
    /** Protocol/capability update. */
    META;

    private static final List<Act> BY_CODE = List.of(values());

    /** The wire code: position in the spec's list, from 0. */
    public int code() {
        return ordinal();
    }

    /** The act with this code, or empty. */
    public static Optional<Act> byCode(long code) {
        return code >= 0 && code < BY_CODE.size() ? Optional.of(BY_CODE.get((int) code)) : Optional.empty();
    }

    /** The act with this exact (upper-case) name, e.g. {@code REQUEST}, or empty. */
    public static Optional<Act> byName(String name) {
        for (Act a : BY_CODE) {
            if (a.name().equals(name)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }
}
