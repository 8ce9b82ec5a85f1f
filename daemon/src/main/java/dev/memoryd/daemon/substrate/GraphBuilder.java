package dev.memoryd.daemon.substrate;

import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.layout.Utf8;
import dev.memoryd.grammar.slices.SliceFile;
import dev.memoryd.grammar.substrate.ChunkFile;
import dev.memoryd.grammar.substrate.ChunkGraph;
import dev.memoryd.grammar.substrate.ChunkRecord;
import dev.memoryd.grammar.substrate.MemoryChunks;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The chunk records and graphs of a set of files alone: memory files (the chunks they stand for,
 * {@link MemoryChunks}) and chunk files ({@link ChunkFile}), by their texts or as of a commit.
 *
 * <p>Stateless; safe from any thread. Records come in the files' order, a memory file's derived
 * chunks together.
 */
final class GraphBuilder {
    private GraphBuilder() {}

    /** Records of every memory file (first pass: slice ids, so placements can name them) and chunk file. */
    static List<ChunkRecord> build(
            Map<String, String> files, Map<String, String> sliceIds, Map<String, Set<String>> derived) {
        for (Map.Entry<String, String> f : files.entrySet()) {
            if (f.getKey().startsWith("users/")) {
                SliceFile.parse(f.getValue())
                        .slice()
                        .map(s -> s.path("id").asText(null))
                        .ifPresent(id -> sliceIds.put(f.getKey(), id));
            }
        }
        List<ChunkRecord> out = new ArrayList<>();
        for (Map.Entry<String, String> f : files.entrySet()) {
            if (f.getKey().startsWith("users/")) {
                List<ChunkRecord> rs =
                        MemoryChunks.derive(f.getKey(), f.getValue(), p -> Optional.ofNullable(sliceIds.get(p)));
                derived.put(f.getKey(), ids(rs));
                out.addAll(rs);
            } else {
                ChunkFile.parse(f.getKey(), f.getValue()).ifPresent(p -> {
                    if (p instanceof ChunkFile.Parsed.Live l) {
                        out.add(l.record());
                    }
                });
            }
        }
        return out;
    }

    /** The ids of {@code rs}, in order. */
    static Set<String> ids(List<ChunkRecord> rs) {
        Set<String> s = new LinkedHashSet<>();
        rs.forEach(r -> s.add(r.id()));
        return s;
    }

    /** As {@link ChunkStore#graphOf(GitStore, org.eclipse.jgit.lib.ObjectId)}. */
    static ChunkGraph graphOf(GitStore repo, org.eclipse.jgit.lib.ObjectId commit) throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        for (String p : repo.listFiles(commit)) {
            if (RootLayout.isContentFile(p)) {
                repo.read(commit, p).flatMap(b -> Utf8.decodeOrEmpty(b, p)).ifPresent(t -> files.put(p, t));
            }
        }
        return graphOf(files);
    }

    /** As {@link ChunkStore#graphOf(Map)}. */
    static ChunkGraph graphOf(Map<String, String> files) {
        ChunkGraph g = new ChunkGraph();
        build(files, new HashMap<>(), new HashMap<>()).forEach(g::put);
        return g;
    }
}
