package dev.memoryd.grammar.policy;

/**
 * One incoming edge of a turn: {@code parent} → this turn, of type {@code edgeType}
 * (the input form {@code {"id": ..., "edge_type": ...}}).
 */
public record ParentRef(String id, EdgeType edgeType) {
    /** Refuses nulls. */
    public ParentRef {
        if (id == null) {
            throw PolicyInputException.invalid("parents[].id", "is required");
        }
        if (edgeType == null) {
            throw PolicyInputException.invalid("parents[].edge_type", "is required");
        }
    }
}
