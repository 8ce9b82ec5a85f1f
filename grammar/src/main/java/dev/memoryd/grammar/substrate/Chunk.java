package dev.memoryd.grammar.substrate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A unit of meaning with identity: id, optional name (unique among the instances of each scope it
 * is placed on), spec (for the system) and body (a JSON object, for the reader).
 *
 * <p>{@code file} and {@code section} say where the chunk lives: a {@code .slices/<id>.slice}
 * file for declared chunks, a memory file (and section) for chunks derived from memory files.
 * {@code derived} chunks are read-only through {@code declare}: they change with the memory
 * file. {@code created} and {@code updated} are ISO-8601 instants (opaque here). The body must
 * not be mutated once in a chunk.
 */
public record Chunk(
        String id,
        String name,
        Spec spec,
        ObjectNode body,
        String file,
        String section,
        boolean derived,
        String created,
        String updated) {
    public Chunk {
        Objects.requireNonNull(id, "id");
        spec = spec == null ? Spec.EMPTY : spec;
        Objects.requireNonNull(body, "body");
    }
}
