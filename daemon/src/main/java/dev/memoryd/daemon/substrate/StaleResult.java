package dev.memoryd.daemon.substrate;

import dev.memoryd.grammar.substrate.Chunk;
import java.util.List;
import java.util.Objects;

/**
 * A {@link ChunkStore#stale} read under derivation scope {@code scope}: how many derived chunks
 * were judged, how many of them are stale ({@code total}), and the first of those ({@code stale});
 * {@code truncated} when more are stale than listed.
 */
public record StaleResult(GraphPoint point, Chunk scope, int derived, int total, List<Item> stale, boolean truncated) {
    public StaleResult {
        Objects.requireNonNull(point, "point");
        Objects.requireNonNull(scope, "scope");
        stale = List.copyOf(stale);
        if (total < stale.size()) {
            throw new IllegalArgumentException("total counts at least the stale chunks listed");
        }
    }

    /** A stale derived chunk and the verdict on it. */
    public record Item(Chunk chunk, DerivedVerdict verdict) {
        public Item {
            Objects.requireNonNull(chunk, "chunk");
            Objects.requireNonNull(verdict, "verdict");
        }
    }
}
