package dev.memoryd.grammar;

/** Result of {@link OpCodec#parse}: a valid op, or why the JSON is not one. */
public sealed interface OpParse {

    /** A well-formed op. */
    record Ok(Op op) implements OpParse {}

    /**
     * A malformed or prohibited op.
     *
     * @param reason    wire reason: {@code invalid_op} or {@code prohibited}
     * @param fieldPath the offending field relative to the op object (e.g. {@code content},
     *                  {@code merge[0].into}); empty for the op object itself
     * @param message   human-readable explanation
     */
    record Invalid(String reason, String fieldPath, String message) implements OpParse {}
}
