package dev.memoryd.grammar.policy;

/**
 * An input to context selection that is malformed ({@link Kind#INVALID}) or names a turn the
 * conversation DAG does not hold ({@link Kind#NOT_FOUND}).
 *
 * <p>Contract: {@link #field()} is the JSON path of the offending field relative to the
 * object that was parsed (e.g. {@code max_nodes}, {@code phase_weights.planning},
 * {@code turns[3].parents[0].edge_type}, {@code anchor_turn_id}); the message starts with it.
 * The daemon maps {@code INVALID} to {@code invalid_request} and {@code NOT_FOUND} to
 * {@code not_found}.
 */
public final class PolicyInputException extends IllegalArgumentException {
    /** What kind of problem the input has. */
    public enum Kind {
        /** The value is missing, of the wrong type, out of range or inconsistent. */
        INVALID,
        /** A turn id that the DAG does not hold. */
        NOT_FOUND
    }

    private final Kind kind;
    private final String field;

    PolicyInputException(Kind kind, String field, String problem) {
        super(field + ": " + problem);
        this.kind = kind;
        this.field = field;
    }

    static PolicyInputException invalid(String field, String problem) {
        return new PolicyInputException(Kind.INVALID, field, problem);
    }

    /** Whether the input is malformed or names an unknown turn. */
    public Kind kind() {
        return kind;
    }

    /** JSON path of the offending field. */
    public String field() {
        return field;
    }
}
