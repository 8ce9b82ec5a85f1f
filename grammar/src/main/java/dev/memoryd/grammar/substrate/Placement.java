package dev.memoryd.grammar.substrate;

import java.util.Objects;

/**
 * A chunk placed on a scope (another chunk). {@code seq} is its position in the scope, or null.
 * A chunk is placed on a given scope at most once; placing it again replaces type and seq.
 */
public record Placement(String chunk, String scope, PlacementType type, Long seq) {
    public Placement {
        Objects.requireNonNull(chunk, "chunk");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(type, "type");
    }

    public boolean isInstance() {
        return type == PlacementType.INSTANCE;
    }

    public Placement withSeq(Long s) {
        return new Placement(chunk, scope, type, s);
    }
}
