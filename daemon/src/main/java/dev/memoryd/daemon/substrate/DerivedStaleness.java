package dev.memoryd.daemon.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.layout.Utf8;
import dev.memoryd.grammar.substrate.Chunk;
import dev.memoryd.grammar.substrate.ChunkGraph;
import dev.memoryd.grammar.substrate.ChunkRecord;
import dev.memoryd.grammar.substrate.MemoryChunks;
import dev.memoryd.grammar.substrate.Placement;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilterGroup;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * Whether a derived chunk is stale (substrate spec, "Derived data"). A chunk is derived when its
 * body carries a string {@code source_commit}; what it derives from are the scopes it is placed
 * on as {@code relates} (its {@code instance} placements are its derivation scopes, such as
 * {@code summaries/opus-4.6}). It is stale when, in a commit after {@code source_commit} up to
 * the commit read, any of those scopes changed: the scope chunk itself, or a chunk placed on it as
 * {@code instance}, transitively (its body, name, spec or placements; a chunk joining or leaving
 * the scope). The chunks counted are those of the scopes as of the commit read and as of
 * {@code source_commit}, so one that left counts too.
 *
 * <p>A declared chunk is its own file, so a commit that touches the file changed it. A memory
 * chunk shares its file with others (a part and its sections), so a commit that touches a memory
 * file counts only when the derived records of the counted chunks differ from its parent's.
 * A {@code source_commit} that is not a commit id (7 to 40 lowercase hex digits) of this repository,
 * or one outside the history of the commit read, makes the chunk stale with a reason: nothing
 * says the scope is as it was.
 *
 * <p>One instance serves one read (it memoizes per source commit and scopes); not thread-safe.
 */
final class DerivedStaleness {
    /** Commits listed in {@code changed_since} at most; more are counted in {@code changed_total}. */
    static final int MAX_LISTED = 100;

    /** The chunk graph as of a commit (from that commit's tree alone). */
    interface GraphAt {
        ChunkGraph at(ObjectId commit) throws IOException;
    }

    private static final java.util.regex.Pattern COMMIT_ID = java.util.regex.Pattern.compile("[0-9a-f]{7,40}");

    private final GitStore git;
    private final GraphAt graphAt;
    private final Map<String, DerivedVerdict> memo = new HashMap<>();

    DerivedStaleness(GitStore git, GraphAt graphAt) {
        this.git = git;
        this.graphAt = graphAt;
    }

    /** The {@code source_commit} of a derived chunk, or null when {@code c} is not derived. */
    static String sourceCommit(Chunk c) {
        JsonNode sc = c.body().get("source_commit");
        return sc != null && sc.isTextual() && !sc.asText().isBlank() ? sc.asText() : null;
    }

    /** The verdict on {@code c} as read in {@code g} at commit {@code read}; null when it is not derived. */
    DerivedVerdict of(ChunkGraph g, ObjectId read, Chunk c) throws IOException {
        String sc = sourceCommit(c);
        if (sc == null) {
            return null;
        }
        List<String> sources = new ArrayList<>();
        for (Placement p : g.placementsOf(c.id())) {
            if (!p.isInstance()) {
                sources.add(p.scope());
            }
        }
        Collections.sort(sources);
        String key = sc + "\u0000" + c.id() + "\u0000" + String.join(",", sources);
        DerivedVerdict v = memo.get(key);
        if (v == null) {
            v = judge(g, read, c.id(), sc, sources);
            memo.put(key, v);
        }
        return v;
    }

    private DerivedVerdict judge(ChunkGraph g, ObjectId read, String self, String sc, List<String> sources)
            throws IOException {
        // A commit id only: a branch name or HEAD~1 would move with the branch and never be stale.
        Optional<ObjectId> from = COMMIT_ID.matcher(sc).matches() ? git.resolve(sc) : Optional.empty();
        if (from.isEmpty()) {
            return new DerivedVerdict(
                    sc, sources, true, List.of(), 0, "source_commit is not the id of a commit of this repository");
        }
        if (read == null || !git.isAncestor(from.get(), read)) {
            return new DerivedVerdict(
                    sc, sources, true, List.of(), 0, "source_commit is not in the history of the commit read");
        }
        if (sources.isEmpty()) {
            return new DerivedVerdict(sc, sources, false, List.of(), 0, null);
        }
        // path -> the counted chunks that live in it, from both ends of the range
        Map<String, Set<String>> byPath = new TreeMap<>();
        collect(g, sources, self, byPath);
        collect(graphAt.at(from.get()), sources, self, byPath);
        List<String> changed = changingCommits(from.get(), read, byPath);
        List<String> listed =
                changed.size() > MAX_LISTED ? changed.subList(changed.size() - MAX_LISTED, changed.size()) : changed;
        return new DerivedVerdict(sc, sources, !changed.isEmpty(), List.copyOf(listed), changed.size(), null);
    }

    /** The chunks of {@code scopes} in {@code g}: each scope and its instances, transitively; by file. */
    private static void collect(ChunkGraph g, List<String> scopes, String self, Map<String, Set<String>> byPath) {
        Deque<String> todo = new ArrayDeque<>();
        Set<String> seen = new LinkedHashSet<>();
        for (String s : scopes) {
            if (g.exists(s)) {
                todo.add(s);
            }
        }
        while (!todo.isEmpty()) {
            String id = todo.poll();
            if (id.equals(self) || !seen.add(id)) {
                continue; // a derived chunk's own change never makes it stale
            }
            Chunk c = g.chunk(id);
            if (c.file() != null) {
                byPath.computeIfAbsent(c.file(), k -> new LinkedHashSet<>()).add(id);
            }
            for (Placement p : g.members(id)) {
                if (p.isInstance()) {
                    todo.add(p.chunk());
                }
            }
        }
    }

    /** Commits after {@code from} up to {@code to} that change one of the counted chunks, oldest first. */
    private List<String> changingCommits(ObjectId from, ObjectId to, Map<String, Set<String>> byPath)
            throws IOException {
        if (byPath.isEmpty()) {
            return List.of();
        }
        Repository repo = git.repository();
        List<String> out = new ArrayList<>();
        try (RevWalk rw = new RevWalk(repo)) {
            rw.markStart(rw.parseCommit(to));
            rw.markUninteresting(rw.parseCommit(from));
            rw.setTreeFilter(
                    AndTreeFilter.create(PathFilterGroup.createFromStrings(byPath.keySet()), TreeFilter.ANY_DIFF));
            for (RevCommit c : rw) {
                RevCommit parent = c.getParentCount() == 0 ? null : rw.parseCommit(c.getParent(0));
                if (changes(repo, parent, c, byPath)) {
                    out.add(c.name());
                }
            }
        }
        Collections.reverse(out); // the walk is newest first
        return out;
    }

    /** Whether {@code c} changes a counted chunk compared with {@code parent} (null: the empty tree). */
    private boolean changes(Repository repo, RevCommit parent, RevCommit c, Map<String, Set<String>> byPath)
            throws IOException {
        try (TreeWalk tw = new TreeWalk(repo)) {
            if (parent == null) {
                tw.addTree(new org.eclipse.jgit.treewalk.EmptyTreeIterator());
            } else {
                tw.addTree(parent.getTree());
            }
            tw.addTree(c.getTree());
            tw.setRecursive(true);
            tw.setFilter(AndTreeFilter.create(PathFilterGroup.createFromStrings(byPath.keySet()), TreeFilter.ANY_DIFF));
            while (tw.next()) {
                String path = tw.getPathString();
                if (!RootLayout.isMemoryFile(path)) {
                    return true; // a chunk file holds one chunk: touching it changed it
                }
                Map<String, List<Object>> before = memoryRecords(path, parent == null ? null : git.read(parent, path));
                Map<String, List<Object>> after = memoryRecords(path, git.read(c, path));
                for (String id : byPath.get(path)) {
                    if (!Objects.equals(before.get(id), after.get(id))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * The records a memory file's text stands for, by id, as what a change is judged on: name,
     * spec, body and placements (not {@code updated}, which every write to the file moves).
     * Other files' slice ids are stood for by their paths, the same on both sides of a commit.
     */
    private static Map<String, List<Object>> memoryRecords(String path, Optional<byte[]> bytes) {
        Map<String, List<Object>> out = new HashMap<>();
        if (bytes == null || bytes.isEmpty()) {
            return out;
        }
        Optional<String> decoded = Utf8.decodeOrEmpty(bytes.get(), path);
        if (decoded.isEmpty()) {
            return out;
        }
        String text = decoded.get();
        for (ChunkRecord r : MemoryChunks.derive(path, text, p -> Optional.of("path:" + p))) {
            Chunk c = r.chunk();
            out.put(r.id(), List.of(String.valueOf(c.name()), c.spec().toJson(), c.body(), r.placements()));
        }
        return out;
    }
}
