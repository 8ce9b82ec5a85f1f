package dev.memoryd.daemon.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.events.DeclarePayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.substrate.ChunkFile;
import dev.memoryd.grammar.substrate.Declare;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Redoes a recorded declaration from its events' payloads (recovery): the declaration was validated
 * when it was recorded, so its files are rendered again as they were, byte for byte.
 */
record Replay(List<JsonNode> payloads) implements Mutation {
    @Override
    public Result apply(FileSource files, Instant now) {
        Map<RepoPath, String> out = new LinkedHashMap<>();
        List<EventSpec> events = new ArrayList<>();
        for (JsonNode p : payloads) {
            ObjectNode payload = ((ObjectNode) p).deepCopy();
            payload.remove("decl");
            DeclarePayload typed = EventPayloads.declare(payload)
                    .orElseThrow(() -> new IllegalStateException("a recorded declare payload has no chunk: " + p));
            String id = typed.chunkId();
            String text = typed instanceof DeclarePayload.Put put
                    ? ChunkFile.render(put.chunk())
                    : ChunkFile.renderRemoved(id, ((DeclarePayload.Removed) typed).removedAt());
            RepoPath path = RepoPath.of(Declare.fileOf(id));
            out.put(path, text);
            events.add(new EventSpec(
                    ChunkStore.OP_DECLARE, path, null, null, null, payload, List.of(), "declared (recovered)"));
        }
        return new Done(out, events, true);
    }
}
