package dev.memoryd.grammar.substrate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * One atomic declaration: chunks to create or update, placements to record, and removals (of a
 * chunk, or of one placement). References ({@code chunk}, {@code scope}) are a {@code ref} of a
 * chunk created in this declaration, a chunk id, or a name path ({@code session/prompt}).
 */
public record Declaration(List<ChunkDecl> chunks, List<PlacementDecl> placements, List<Removal> removals) {
    public Declaration {
        chunks = List.copyOf(chunks);
        placements = List.copyOf(placements);
        removals = List.copyOf(removals);
    }

    /**
     * A chunk to create ({@code create}: {@code id} is freshly assigned by the caller) or to update
     * ({@code id} names an existing chunk; a null {@code name}/{@code spec}/{@code body} with its
     * {@code set} flag false keeps the current value).
     */
    public record ChunkDecl(
            String ref, String id, boolean create, String name, boolean nameSet, Spec spec, ObjectNode body) {}

    /** {@code seq} null means none, or the next one when the scope's contract is ordered. */
    public record PlacementDecl(String chunk, String scope, PlacementType type, Long seq) {}

    /** Removes the chunk ({@code scope} null) or only its placement on {@code scope}. */
    public record Removal(String chunk, String scope) {}
}
