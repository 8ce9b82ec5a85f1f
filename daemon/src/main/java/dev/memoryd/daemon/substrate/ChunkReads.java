package dev.memoryd.daemon.substrate;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.grammar.substrate.Chunk;
import dev.memoryd.grammar.substrate.ChunkGraph;
import dev.memoryd.grammar.substrate.Placement;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The reads of the chunk graph ({@code scope}, {@code traverse}, {@code stale}), each answered
 * from one root: the served root's read graph as published, its graph at a commit (rebuilt from
 * that commit's tree alone, two cached), or a mounted peer's at the commit it is read at.
 *
 * <p>Thread-safe: a read of the published graph holds its read lock; a graph at a commit or a
 * peer's is read while holding its monitor. Never writes.
 */
final class ChunkReads {
    private final GitStore git;
    private final String branch;
    private final PublishedGraphs published;
    private final Map<ObjectId, ChunkGraph> atCache = new LinkedHashMap<>(4, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ObjectId, ChunkGraph> e) {
            return size() > 2;
        }
    };
    private volatile MountedGraphs mounted = MountedGraphs.NONE;

    ChunkReads(GitStore git, String branch, PublishedGraphs published) {
        this.git = git;
        this.branch = branch;
        this.published = published;
    }

    /** Lets references name the chunks of {@code peers} (read-only). */
    void mount(MountedGraphs peers) {
        this.mounted = peers;
    }

    MountedGraphs mounted() {
        return mounted;
    }

    /** As {@link ChunkStore#scope}. */
    Outcome<ScopeResult> scope(ChunkStore.ScopeQuery q) throws IOException {
        return read(q.at(), q.scopes().get(0), v -> {
            ChunkGraph g = v.graph();
            List<String> scopes = new ArrayList<>();
            List<String> minus = new ArrayList<>();
            Failure f = resolveAll(v, q.scopes(), "scopes", scopes);
            if (f == null) {
                f = resolveAll(v, q.minus(), "minus", minus);
            }
            if (f != null) {
                return Outcome.fail(f);
            }
            List<String> ids = g.scope(scopes, minus);
            int end = Math.max(0, ids.size() - q.offset());
            int start = Math.max(0, end - q.limit());
            List<ScopeResult.Member> page = new ArrayList<>();
            for (String id : ids.subList(start, end)) {
                Chunk c = g.chunk(id);
                page.add(new ScopeResult.Member(c, g.placementsOf(id), judge(v, c)));
            }
            return Outcome.ok(new ScopeResult(
                    v.point(),
                    ids.size(),
                    q.offset(),
                    q.limit(),
                    scopes.stream().map(g::chunk).toList(),
                    minus.stream().map(g::chunk).toList(),
                    page));
        });
    }

    /**
     * Follows connections from a chunk: the chunks placed on it, the other scopes those are placed
     * on (connections), then the same from each connection, up to {@code depth} levels.
     */
    Outcome<TraverseResult> traverse(String from, int depth, String at, int limit) throws IOException {
        return read(at, from, v -> {
            ChunkGraph g = v.graph();
            List<String> start = new ArrayList<>();
            Failure f = resolveAll(v, List.of(from), "from", start);
            if (f != null) {
                return Outcome.fail(f);
            }
            String origin = start.get(0);
            List<TraverseResult.Reached> chunks = new ArrayList<>();
            List<Placement> placements = new ArrayList<>();
            Map<String, Integer> connectionDepth = new LinkedHashMap<>();
            Map<String, List<String>> via = new HashMap<>();
            Set<String> seenChunks = new HashSet<>();
            Set<String> seenScopes = new HashSet<>(Set.of(origin));
            List<String> frontier = List.of(origin);
            boolean truncated = false;
            for (int level = 1; level <= depth && !frontier.isEmpty() && !truncated; level++) {
                List<String> next = new ArrayList<>();
                for (String s : frontier) {
                    for (String m : g.scope(List.of(s), List.of())) {
                        placements.add(g.placement(m, s));
                        if (!seenChunks.add(m)) {
                            continue;
                        }
                        if (seenChunks.size() > limit) {
                            truncated = true;
                            break;
                        }
                        chunks.add(new TraverseResult.Reached(g.chunk(m), level, judge(v, g.chunk(m))));
                        for (Placement p : g.placementsOf(m)) {
                            if (seenScopes.contains(p.scope()) && !connectionDepth.containsKey(p.scope())) {
                                continue;
                            }
                            if (!connectionDepth.containsKey(p.scope())) {
                                connectionDepth.put(p.scope(), level);
                                via.put(p.scope(), new ArrayList<>());
                                seenScopes.add(p.scope());
                                next.add(p.scope());
                            }
                            via.get(p.scope()).add(m);
                        }
                    }
                    if (truncated) {
                        break;
                    }
                }
                frontier = next;
            }
            List<TraverseResult.Connection> connections = new ArrayList<>();
            connectionDepth.forEach(
                    (id, d) -> connections.add(new TraverseResult.Connection(g.chunk(id), d, via.get(id))));
            return Outcome.ok(
                    new TraverseResult(v.point(), g.chunk(origin), chunks, placements, connections, truncated));
        });
    }

    private interface GraphRead<T> {
        Outcome<T> apply(View v) throws IOException;
    }

    /**
     * The graph one read answers from: the served root's (on {@code branch}) or a peer's, at
     * {@code commit}, with the judge of its derived chunks' staleness.
     */
    private record View(ChunkGraph graph, GraphPoint point, DerivedStaleness staleness) {
        ObjectId commit() {
            return point.commit() == null ? null : ObjectId.fromString(point.commit());
        }

        String peer() {
            return point.peer();
        }
    }

    /** A derived chunk's staleness; null for other chunks. */
    private static DerivedVerdict judge(View v, Chunk c) throws IOException {
        return v.staleness().of(v.graph(), v.commit(), c);
    }

    /**
     * The stale derived chunks under {@code under} (a derivation scope such as
     * {@code summaries/opus-4.6}): every chunk placed on it or, transitively, on one of its
     * instances, whose body carries {@code source_commit}, judged by {@link DerivedStaleness}.
     */
    Outcome<StaleResult> stale(String under, String at, int limit) throws IOException {
        return read(at, under, v -> {
            ChunkGraph g = v.graph();
            List<String> start = new ArrayList<>();
            Failure f = resolveAll(v, List.of(under), "scope", start);
            if (f != null) {
                return Outcome.fail(f);
            }
            StaleListing.Found found = StaleListing.under(g, start.get(0), v.staleness(), v.commit(), limit);
            return Outcome.ok(new StaleResult(
                    v.point(),
                    g.chunk(start.get(0)),
                    found.derived(),
                    found.stale().size() + found.more(),
                    found.stale(),
                    found.more() > 0));
        });
    }

    /**
     * Runs {@code fn} on the graph the read's first reference {@code first} is in: a peer's when it
     * names one (at the commit the peer is read at), else the served root's at {@code at} (null:
     * the read graph, as published).
     */
    private <T> Outcome<T> read(String at, String first, GraphRead<T> fn) throws IOException {
        Optional<String> peer = mounted.peerOf(first);
        if (peer.isPresent()) {
            if (at != null) {
                return Outcome.fail(new Failure(
                        ErrorReason.INVALID_REQUEST,
                        "'" + first + "' is in peer '" + peer.get()
                                + "', which is read at its mounted commit: branch and at apply to the served root only",
                        Failure.ordered("field", "at", "peer", peer.get())));
            }
            MountedGraphs.PeerGraph pg = mounted.graph(peer.get()).orElseThrow();
            DerivedStaleness judge = new DerivedStaleness(pg.git(), c -> GraphBuilder.graphOf(pg.git(), c));
            synchronized (pg.graph()) {
                return fn.apply(new View(pg.graph(), new GraphPoint(null, pg.peer(), pg.commit()), judge));
            }
        }
        DerivedStaleness judge = new DerivedStaleness(git, this::graphAt);
        if (at == null) {
            return published.read(readGraph -> {
                ObjectId h = git.head();
                return fn.apply(new View(readGraph, new GraphPoint(branch, null, h == null ? null : h.name()), judge));
            });
        }
        Optional<ObjectId> c = git.resolve(at);
        if (c.isEmpty()) {
            return Outcome.fail(ErrorReason.NOT_FOUND, "no commit '" + at + "'");
        }
        ChunkGraph g = graphAt(c.get());
        synchronized (g) {
            return fn.apply(new View(g, new GraphPoint(branch, null, c.get().name()), judge));
        }
    }

    /** The field as of a commit, from that commit's tree alone. */
    ChunkGraph graphAt(ObjectId commit) throws IOException {
        synchronized (atCache) {
            ChunkGraph g = atCache.get(commit);
            if (g != null) {
                return g;
            }
        }
        ChunkGraph g = GraphBuilder.graphOf(git, commit);
        synchronized (atCache) {
            atCache.put(commit, g);
        }
        return g;
    }

    /**
     * Resolves {@code refs} in the view's graph into {@code out}; a reference in another root than
     * the view's (a peer's in a read of the served root, or the other way round) is refused, as one
     * read answers from one root.
     */
    private Failure resolveAll(View v, List<String> refs, String field, List<String> out) {
        for (int i = 0; i < refs.size(); i++) {
            String f = field + (field.equals("from") ? "" : "[" + i + "]");
            String ref = refs.get(i);
            Optional<String> peer = mounted.peerOf(ref);
            if (!peer.equals(Optional.ofNullable(v.peer()))) {
                return new Failure(
                        ErrorReason.INVALID_REQUEST,
                        f + ": '" + ref + "' is in "
                                + peer.map(x -> "peer '" + x + "'").orElse("the served root") + ", but this read is of "
                                + (v.peer() == null ? "the served root" : "peer '" + v.peer() + "'")
                                + ": one read answers from one root",
                        Map.of("field", f));
            }
            ChunkGraph.Resolution res =
                    v.graph().resolve(peer.map(x -> MountedGraphs.rest(ref, x)).orElse(ref));
            if (res instanceof ChunkGraph.Resolution.Found found) {
                out.add(found.id());
            } else if (res instanceof ChunkGraph.Resolution.Ambiguous a) {
                return new Failure(
                        ErrorReason.INVALID_REQUEST,
                        f + ": " + a.message(),
                        Failure.ordered("field", f, "candidates", a.candidates()));
            } else {
                return new Failure(
                        ErrorReason.NOT_FOUND,
                        f + ": " + ((ChunkGraph.Resolution.Missing) res).message(),
                        Map.of("field", f));
            }
        }
        return null;
    }
}
