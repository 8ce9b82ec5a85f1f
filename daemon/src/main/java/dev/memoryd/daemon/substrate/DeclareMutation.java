package dev.memoryd.daemon.substrate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.events.DeclarePayload;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.substrate.ChunkFile;
import dev.memoryd.grammar.substrate.ChunkGraph;
import dev.memoryd.grammar.substrate.ChunkRecord;
import dev.memoryd.grammar.substrate.Declaration;
import dev.memoryd.grammar.substrate.Declare;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A declaration on the writer thread: validated against (and, when accepted, applied to) the
 * writer's graph, which already holds every declaration submitted before it. Refusals leave the
 * graph as it was. Each changed chunk becomes one file and one {@code declare} event.
 */
record DeclareMutation(ChunkGraph graph, Declaration declaration, Runnable awaitGraph) implements Mutation {
    @Override
    public Result apply(FileSource files, Instant now) {
        awaitGraph.run(); // the batches before this one, published into the graph off the writer thread
        Declare.Result r = Declare.apply(graph, declaration, now.toString());
        if (r instanceof Declare.Violation v) {
            return new Refused(-1, violation(v, v.message()));
        }
        if (r instanceof Declare.Refusal f) {
            ErrorReason reason = switch (f.kind()) {
                case NOT_FOUND -> ErrorReason.NOT_FOUND;
                case PROHIBITED -> ErrorReason.PROHIBITED;
                case INVALID -> ErrorReason.INVALID_REQUEST;
            };
            return new Refused(-1, new Failure(reason, f.message(), Map.of("field", f.field())));
        }
        Declare.Applied a = (Declare.Applied) r;
        if (!a.changed()) {
            return new Done(Map.of(), List.of(), false);
        }
        Map<RepoPath, String> out = new LinkedHashMap<>();
        List<EventSpec> events = new ArrayList<>();
        String summary = "declared " + a.put().size() + " chunk(s)"
                + (a.removed().isEmpty() ? "" : ", removed " + a.removed().size());
        for (ChunkRecord rec : a.put()) {
            RepoPath p = RepoPath.of(Declare.fileOf(rec.id()));
            out.put(p, ChunkFile.render(rec));
            ObjectNode payload = new DeclarePayload.Put(rec, null, null).toJson();
            events.add(new EventSpec(ChunkStore.OP_DECLARE, p, null, null, null, payload, List.of(), summary));
        }
        for (String id : a.removed()) {
            RepoPath p = RepoPath.of(Declare.fileOf(id));
            out.put(p, ChunkFile.renderRemoved(id, now.toString()));
            ObjectNode payload = new DeclarePayload.Removed(id, now.toString(), null, null).toJson();
            events.add(new EventSpec(ChunkStore.OP_DECLARE, p, null, null, null, payload, List.of(), summary));
        }
        return new Done(out, events, true);
    }

    /** A spec rule broken: {@code spec_violation} with {@code data: {rule, chunk, chunk_name?, scope}}. */
    static Failure violation(Declare.Violation v, String message) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("rule", v.rule());
        d.put("chunk", v.chunk());
        if (v.chunkName() != null) {
            d.put("chunk_name", v.chunkName());
        }
        d.put("scope", v.scope());
        return new Failure(ErrorReason.SPEC_VIOLATION, message, d);
    }
}
