package dev.memoryd.daemon.substrate;

import dev.memoryd.grammar.substrate.Chunk;
import dev.memoryd.grammar.substrate.Placement;
import java.util.List;
import java.util.Objects;

/**
 * A {@link ChunkStore#traverse} read from chunk {@code from}: the chunks reached level by level,
 * every placement followed (in the order followed), the other scopes those chunks are placed on
 * ({@code connections}), and whether the chunk limit cut it short.
 */
public record TraverseResult(
        GraphPoint point,
        Chunk from,
        List<Reached> chunks,
        List<Placement> placements,
        List<Connection> connections,
        boolean truncated) {
    public TraverseResult {
        Objects.requireNonNull(point, "point");
        Objects.requireNonNull(from, "from");
        chunks = List.copyOf(chunks);
        placements = List.copyOf(placements);
        connections = List.copyOf(connections);
    }

    /** A chunk reached at {@code depth} (1: placed on {@code from}), with its staleness when derived (else null). */
    public record Reached(Chunk chunk, int depth, DerivedVerdict verdict) {
        public Reached {
            Objects.requireNonNull(chunk, "chunk");
            if (depth < 1) {
                throw new IllegalArgumentException("depth starts at 1");
            }
        }
    }

    /** Another scope reached at {@code depth}, through the chunks placed on it ({@code via}, ids). */
    public record Connection(Chunk chunk, int depth, List<String> via) {
        public Connection {
            Objects.requireNonNull(chunk, "chunk");
            if (depth < 1) {
                throw new IllegalArgumentException("depth starts at 1");
            }
            via = List.copyOf(via);
        }
    }
}
