package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.grammar.substrate.ChunkFile;
import dev.memoryd.grammar.substrate.ChunkRecord;
import java.util.Objects;

/**
 * The payload of {@code declare}: one chunk file's new state, the whole chunk ({@link Put}) or
 * its removal ({@link Removed}), with the {@link Decl} and the provenance the writer added (null
 * until it does; the provenance is kept as recorded, since only the edges read it).
 */
public sealed interface DeclarePayload extends EventPayload {
    String OP = "declare";

    /** The id of the chunk whose file this is. */
    String chunkId();

    @Override
    default String op() {
        return OP;
    }

    /** A chunk created or changed: its whole record. */
    record Put(ChunkRecord chunk, Decl decl, JsonNode provenance) implements DeclarePayload {
        public Put {
            Objects.requireNonNull(chunk, "chunk");
        }

        @Override
        public String chunkId() {
            return chunk.id();
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode p = JsonNodeFactory.instance.objectNode();
            p.set("chunk", ChunkFile.toJson(chunk));
            return Payloads.tail(p, decl, provenance);
        }
    }

    /** A chunk removed at {@code removedAt} (an ISO-8601 instant). */
    record Removed(String id, String removedAt, Decl decl, JsonNode provenance) implements DeclarePayload {
        public Removed {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(removedAt, "removedAt");
        }

        @Override
        public String chunkId() {
            return id;
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode p = JsonNodeFactory.instance.objectNode();
            p.put("removed", id);
            p.put("removed_at", removedAt);
            return Payloads.tail(p, decl, provenance);
        }
    }
}
