package dev.memoryd.grammar.substrate;

import java.util.List;

/**
 * What one chunk file holds: the chunk and its own (outgoing) placements, in a stable order. A
 * placement belongs to the chunk being placed, so placing a chunk rewrites only that chunk's file.
 */
public record ChunkRecord(Chunk chunk, List<Placement> placements) {
    public ChunkRecord {
        placements = List.copyOf(placements);
        for (Placement p : placements) {
            if (!p.chunk().equals(chunk.id())) {
                throw new IllegalArgumentException("placement " + p + " is not of chunk " + chunk.id());
            }
        }
    }

    public String id() {
        return chunk.id();
    }
}
