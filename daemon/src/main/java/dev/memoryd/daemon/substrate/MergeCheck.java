package dev.memoryd.daemon.substrate;

import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.layout.Utf8;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.substrate.ChunkFile;
import dev.memoryd.grammar.substrate.ChunkGraph;
import dev.memoryd.grammar.substrate.ChunkRecord;
import dev.memoryd.grammar.substrate.Declare;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The spec rules over the chunk files a merge writes ({@code branch.merge}, a sync's merge): the
 * merged state is checked by {@link Declare#check}, the validator of {@code declare}, so a merge
 * that would break a rule (a name taken twice in one scope, a {@code unique} value held twice,
 * ...) is refused with {@code spec_violation} exactly as a declaration would be.
 *
 * <p>The graph checked against is the branch's as its writer sees it: {@link ChunkStore#checkMerge}
 * for the checked-out branch (the writer's graph), {@link #graphAt} for any other. Stateless.
 */
public final class MergeCheck {
    private MergeCheck() {}

    /** What a merge's chunk files change: records to put, and ids gone (tombstoned, or no chunk file any more). */
    record Changes(List<ChunkRecord> put, Set<String> removed) {}

    /**
     * The chunk files ({@code .slices/<id>.slice}) among a merge's files, by path; a null text
     * means the file is gone.
     */
    public static Map<String, String> chunkFiles(Map<RepoPath, String> merged) {
        Map<String, String> out = new LinkedHashMap<>();
        merged.forEach((p, t) -> {
            if (RootLayout.isChunkFile(p.value())) {
                out.put(p.value(), t);
            }
        });
        return out;
    }

    /** Reads chunk files (path → text, null: gone) as a restart would: a live record, or the id leaves the graph. */
    static Changes changes(Map<String, String> chunkFiles) {
        List<ChunkRecord> put = new ArrayList<>();
        Set<String> removed = new LinkedHashSet<>();
        chunkFiles.forEach((p, t) -> {
            Optional<ChunkFile.Parsed> parsed = t == null ? Optional.empty() : ChunkFile.parse(p, t);
            if (parsed.isPresent() && parsed.get() instanceof ChunkFile.Parsed.Live l) {
                put.add(l.record());
            } else {
                removed.add(p.substring(".slices/".length(), p.length() - ".slice".length()));
            }
        });
        return new Changes(put, removed);
    }

    /** The first spec rule {@code g} would break with {@code chunkFiles} written, or null; {@code g} is left as it was. */
    public static Declare.Violation check(ChunkGraph g, Map<String, String> chunkFiles) {
        Changes c = changes(chunkFiles);
        return Declare.check(g, c.put(), c.removed());
    }

    /**
     * The field of a branch that is not checked out, as its writer sees it: the memory files of
     * {@code commit} (its head), and its chunk files read through {@code files} (the writer's view,
     * which includes the texts of its batch so far).
     */
    public static ChunkGraph graphAt(GitStore git, ObjectId commit, FileSource files) throws IOException {
        Map<String, String> texts = new LinkedHashMap<>();
        for (String p : git.listFiles(commit)) {
            if (RootLayout.isMemoryFile(p)) {
                // From the commit, not through the writer's source: reading a memory file there records
                // a human's edit of it first, which only the files the merge changes should do.
                git.read(commit, p).flatMap(b -> Utf8.decodeOrEmpty(b, p)).ifPresent(t -> texts.put(p, t));
            } else if (RootLayout.isChunkFile(p)) {
                files.read(RepoPath.of(p)).ifPresent(t -> texts.put(p, t));
            }
        }
        ChunkGraph g = new ChunkGraph();
        GraphBuilder.build(texts, new HashMap<>(), new HashMap<>()).forEach(g::put);
        return g;
    }

    /**
     * A merge refused for a spec rule, reported as a failing {@code declare} reports it
     * ({@code spec_violation}, {@code data: {rule, chunk, chunk_name?, scope}}), its message
     * followed by {@code advice} (how to fix it).
     */
    public static Failure failure(Declare.Violation v, String advice) {
        return DeclareMutation.violation(v, v.message() + "; " + advice);
    }
}
