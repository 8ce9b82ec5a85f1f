package dev.memoryd.daemon.substrate;

import dev.memoryd.grammar.substrate.Chunk;
import dev.memoryd.grammar.substrate.Placement;
import java.util.List;
import java.util.Objects;

/**
 * A {@link ChunkStore#scope} read: where it was answered, the resolved {@code scopes} and
 * {@code minus}, how many chunks are on them in all ({@code total}), and the page asked for
 * ({@code offset} from the tail, at most {@code limit}) in the graph's order.
 */
public record ScopeResult(
        GraphPoint point,
        int total,
        int offset,
        int limit,
        List<Chunk> scopes,
        List<Chunk> minus,
        List<Member> chunks) {
    public ScopeResult {
        Objects.requireNonNull(point, "point");
        scopes = List.copyOf(scopes);
        minus = List.copyOf(minus);
        chunks = List.copyOf(chunks);
        if (chunks.size() > total || chunks.size() > limit) {
            throw new IllegalArgumentException("a page holds at most limit of the total chunks");
        }
    }

    /** How many chunks this page holds. */
    public int returned() {
        return chunks.size();
    }

    /** One chunk of the page, with every placement it has, and its staleness when it is derived (else null). */
    public record Member(Chunk chunk, List<Placement> placements, DerivedVerdict verdict) {
        public Member {
            Objects.requireNonNull(chunk, "chunk");
            placements = List.copyOf(placements);
        }
    }
}
