package dev.memoryd.daemon.substrate;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.events.DeclarePayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.slices.SliceFile;
import dev.memoryd.grammar.substrate.Chunk;
import dev.memoryd.grammar.substrate.ChunkFile;
import dev.memoryd.grammar.substrate.ChunkGraph;
import dev.memoryd.grammar.substrate.ChunkRecord;
import dev.memoryd.grammar.substrate.Declaration;
import dev.memoryd.grammar.substrate.DeclarationCodec;
import dev.memoryd.grammar.substrate.Declare;
import dev.memoryd.grammar.substrate.MemoryChunks;
import dev.memoryd.grammar.substrate.Placement;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.IdGenerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The substrate over one memory root: declared chunks ({@code .slices/<ULID>.slice}, see
 * {@link ChunkFile}) and the chunks memory files stand for ({@link MemoryChunks}), in one graph.
 *
 * <p>Two graphs are kept. The writer's graph is touched only on the writer thread: a
 * {@code declare} validates and applies there, in submission order, so declarations in one batch
 * see each other. The read graph serves {@link #scope} and {@link #traverse}; it changes only when
 * a batch is published (this store is a writer listener), so a read never sees a declaration that
 * is not yet durable. Both are rebuilt from the working tree at start ({@link #load}); a read
 * {@code at} a commit is rebuilt from that commit's tree alone (two are cached).
 *
 * <p>Each changed chunk is one ledger event (op {@code declare}, {@code file_path} its chunk file,
 * payload its whole new record or {@code removed}), so recovery re-renders the files from the
 * payloads without validating again, and the search index re-indexes each file. Thread-safe.
 */
public final class ChunkStore implements Consumer<List<Event>> {
    public static final String OP_DECLARE = "declare";
    public static final int DEFAULT_LIMIT = 50;
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(ChunkStore.class.getName());

    private final WritePipeline writer;
    private final IdGenerator ids;
    private final Path root;
    private final GitStore git;
    private final String branch;
    /**
     * Declarations validate against it on the writer thread, batches are published into it on the
     * substrate thread; a declaration first waits for the batches before it ({@link #awaitPublished}).
     */
    private final ChunkGraph writerGraph = new ChunkGraph();

    private final ChunkGraph readGraph = new ChunkGraph();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** Memory file → its slice id, and → the ids derived from it. Substrate thread only. */
    private final Map<String, String> sliceIdByPath = new HashMap<>();

    private final Map<String, Set<String>> derivedByPath = new HashMap<>();
    private final Map<ObjectId, ChunkGraph> atCache = new LinkedHashMap<>(4, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ObjectId, ChunkGraph> e) {
            return size() > 2;
        }
    };
    private volatile boolean loaded;
    /** Publishes batches into both graphs, in order, off the writer thread. */
    private final java.util.concurrent.ExecutorService publisher =
            java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "memoryd-substrate");
                t.setDaemon(true);
                return t;
            });

    private volatile java.util.concurrent.Future<?> lastPublish = CompletableFuture.completedFuture(null);
    private volatile MountedGraphs mounted = MountedGraphs.NONE;

    public ChunkStore(WritePipeline writer, IdGenerator ids, Path root, GitStore git, String branch) {
        this.writer = writer;
        this.ids = ids;
        this.root = root;
        this.git = git;
        this.branch = branch;
        writer.registerReplayer(
                OP_DECLARE, evs -> new Replay(evs.stream().map(Event::payload).toList()));
    }

    /** Lets references name the chunks of {@code peers} (read-only); set before the daemon serves. */
    public void mount(MountedGraphs peers) {
        this.mounted = peers;
    }

    /** Builds both graphs from the working tree; call after recovery, before the writer starts. */
    public void load() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        for (String rel : walk()) {
            files.put(rel, Files.readString(root.resolve(rel), StandardCharsets.UTF_8));
        }
        List<ChunkRecord> all = build(files, sliceIdByPath, derivedByPath);
        lock.writeLock().lock();
        try {
            for (ChunkRecord r : all) {
                writerGraph.put(r);
                readGraph.put(r);
            }
        } finally {
            lock.writeLock().unlock();
        }
        loaded = true;
    }

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

    private static Set<String> ids(List<ChunkRecord> rs) {
        Set<String> s = new LinkedHashSet<>();
        rs.forEach(r -> s.add(r.id()));
        return s;
    }

    private List<String> walk() throws IOException {
        return RootLayout.contentFilesOnDisk(root);
    }

    /**
     * Derives the chunks of a batch's memory files on the substrate thread, off the writer's path
     * (about a fifth of the writer's CPU when it ran there). Readers and the next declaration
     * first wait for what was published before them ({@link #awaitPublished}), so a reply never
     * outruns the graph a caller reads next. Writer thread.
     */
    @Override
    public void accept(List<Event> events) {
        if (!loaded) {
            return; // recovery runs before load, which then reads the recovered files
        }
        lastPublish = publisher.submit(() -> {
            try {
                publish(events);
            } catch (RuntimeException e) {
                LOG.log(
                        java.util.logging.Level.SEVERE,
                        "the chunk graph missed a batch; a restart rebuilds it from the files",
                        e);
                throw e;
            }
        });
    }

    /** Waits until every batch published so far is in both graphs (tasks run in order on one thread). */
    void awaitPublished() {
        try {
            lastPublish.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the chunk graph", e);
        } catch (java.util.concurrent.ExecutionException e) {
            // logged where it happened; the graphs hold what the failed batch got to
        }
    }

    /** Stops the substrate thread after what is queued. */
    public void close() {
        publisher.shutdown();
        try {
            publisher.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One batch into both graphs; memory files it touched are derived again. Substrate thread. */
    private void publish(List<Event> events) {
        Set<String> memoryFiles = new LinkedHashSet<>();
        Set<String> chunkFiles = new LinkedHashSet<>(); // a merge's: chunks declared on another branch or replica
        List<DeclarePayload> declared = new ArrayList<>();
        for (Event e : events) {
            if (OP_DECLARE.equals(e.op())) {
                declared.add(EventPayloads.declare(e)
                        .orElseThrow(() ->
                                new IllegalStateException("declare event " + e.eventId() + " has no chunk's payload")));
            } else {
                for (String p : dev.memoryd.daemon.write.EventFiles.touched(e)) {
                    if (RootLayout.isMemoryFile(p)) {
                        memoryFiles.add(p);
                    } else if (RootLayout.isChunkFile(p)) {
                        chunkFiles.add(p);
                    }
                }
            }
        }
        if (declared.isEmpty() && memoryFiles.isEmpty() && chunkFiles.isEmpty()) {
            return;
        }
        Map<String, String> mergedTexts = new LinkedHashMap<>();
        chunkFiles.forEach(p -> mergedTexts.put(p, readText(p).orElse(null)));
        // Gone: removed on the other side, or not a chunk file any more.
        MergeCheck.Changes merged = MergeCheck.changes(mergedTexts);
        List<ChunkRecord> mergedLive = merged.put();
        Set<String> mergedGone = merged.removed();
        mergedGone.forEach(writerGraph::remove);
        mergedLive.forEach(writerGraph::put);
        Map<String, List<ChunkRecord>> derived = new LinkedHashMap<>();
        Map<String, Set<String>> gone = new HashMap<>();
        for (String p : memoryFiles) {
            readText(p)
                    .flatMap(t -> SliceFile.parse(t).slice())
                    .map(s -> s.path("id").asText(null))
                    .ifPresent(id -> sliceIdByPath.put(p, id));
        }
        for (String p : memoryFiles) {
            List<ChunkRecord> rs = readText(p)
                    .map(t -> MemoryChunks.derive(p, t, x -> Optional.ofNullable(sliceIdByPath.get(x))))
                    .orElse(List.of());
            Set<String> old = new HashSet<>(derivedByPath.getOrDefault(p, Set.of()));
            old.removeAll(ids(rs));
            gone.put(p, old);
            derivedByPath.put(p, ids(rs));
            derived.put(p, rs);
        }
        // The writer's graph already holds declarations (applied when validated); memory files are new to both.
        for (String p : memoryFiles) {
            gone.get(p).forEach(writerGraph::remove);
            derived.get(p).forEach(writerGraph::put);
        }
        lock.writeLock().lock();
        try {
            mergedGone.forEach(readGraph::remove);
            mergedLive.forEach(readGraph::put);
            for (DeclarePayload payload : declared) {
                if (payload instanceof DeclarePayload.Put put) {
                    readGraph.put(put.chunk());
                } else {
                    readGraph.remove(payload.chunkId());
                }
            }
            for (String p : memoryFiles) {
                gone.get(p).forEach(readGraph::remove);
                derived.get(p).forEach(readGraph::put);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    private Optional<String> readText(String rel) {
        try {
            Path f = root.resolve(rel);
            return Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                    ? Optional.of(Files.readString(f, StandardCharsets.UTF_8))
                    : Optional.empty();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Writer thread only: the first spec rule the writer's graph would break once a merge writes
     * {@code chunkFiles} (path → merged text, null: gone), or null. The graph is left as it was:
     * the merge's files enter it when its batch is published ({@link #accept}), as a restart would
     * read them.
     */
    public Declare.Violation checkMerge(Map<String, String> chunkFiles) {
        awaitPublished(); // the batches before this merge, published into the graph off the writer thread
        return MergeCheck.check(writerGraph, chunkFiles);
    }

    /** A submitted declaration: the ids given to its new chunks, and what became of it. */
    public record Submitted(List<Created> created, CompletableFuture<WriteOutcome> outcome) {}

    public record Created(String ref, String id, String path) {}

    /** A fresh chunk id (a ULID), for the edge that parses a declaration's new chunks ({@link DeclarationCodec}). */
    public String newChunkId() {
        return ids.next().value();
    }

    /**
     * Submits one parsed declaration (one commit, or nothing). A declaration that changes,
     * places onto or removes a mounted peer's chunk completes at once with {@code prohibited};
     * spec failures with {@code spec_violation}. {@code provenance} null: none recorded.
     */
    public Submitted declare(
            Declaration d, String rationale, String actor, dev.memoryd.daemon.write.Provenance provenance) {
        Failure onPeer = peerReference(d);
        if (onPeer != null) {
            return new Submitted(List.of(), CompletableFuture.completedFuture(new WriteOutcome.Rejected(-1, onPeer)));
        }
        List<Created> created = new ArrayList<>();
        for (Declaration.ChunkDecl c : d.chunks()) {
            if (c.create()) {
                created.add(new Created(c.ref(), c.id(), ".slices/" + c.id() + ".slice"));
            }
        }
        return new Submitted(
                created,
                writer.submit(WriteRequest.of(
                                new DeclareMutation(writerGraph, d, this::awaitPublished),
                                rationale == null ? "declare" : rationale,
                                actor)
                        .withProvenance(provenance)));
    }

    /** {@code prohibited} naming the peer when the declaration changes, places onto or removes a peer's chunk. */
    private Failure peerReference(Declaration d) {
        List<String[]> refs = new ArrayList<>();
        for (int i = 0; i < d.chunks().size(); i++) {
            Declaration.ChunkDecl c = d.chunks().get(i);
            if (!c.create()) {
                refs.add(new String[] {c.id(), "chunks[" + i + "].id"});
            }
        }
        for (int i = 0; i < d.placements().size(); i++) {
            refs.add(new String[] {d.placements().get(i).chunk(), "placements[" + i + "].chunk"});
            refs.add(new String[] {d.placements().get(i).scope(), "placements[" + i + "].scope"});
        }
        for (int i = 0; i < d.removals().size(); i++) {
            refs.add(new String[] {d.removals().get(i).chunk(), "removals[" + i + "].chunk"});
            refs.add(new String[] {d.removals().get(i).scope(), "removals[" + i + "].scope"});
        }
        for (String[] r : refs) {
            Optional<String> peer = r[0] == null ? Optional.empty() : mounted.peerOf(r[0]);
            if (peer.isPresent()) {
                return new Failure(
                        ErrorReason.PROHIBITED,
                        "'" + r[0] + "' is a chunk of peer '" + peer.get()
                                + "', mounted read-only: declare changes the served root's chunks only",
                        Failure.ordered("peer", peer.get(), "reference", r[0]));
            }
        }
        return null;
    }

    /** A {@code scope} read: the chunks on every scope and on none of {@code minus}; a page from the tail. */
    public record ScopeQuery(List<String> scopes, List<String> minus, String at, int limit, int offset) {}

    public Outcome<ScopeResult> scope(ScopeQuery q) throws IOException {
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
    public Outcome<TraverseResult> traverse(String from, int depth, String at, int limit) throws IOException {
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
    public Outcome<StaleResult> stale(String under, String at, int limit) throws IOException {
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
            DerivedStaleness judge = new DerivedStaleness(pg.git(), c -> graphOf(pg.git(), c));
            synchronized (pg.graph()) {
                return fn.apply(new View(pg.graph(), new GraphPoint(null, pg.peer(), pg.commit()), judge));
            }
        }
        DerivedStaleness judge = new DerivedStaleness(git, this::graphAt);
        if (at == null) {
            awaitPublished();
            lock.readLock().lock();
            try {
                ObjectId h = git.head();
                return fn.apply(new View(readGraph, new GraphPoint(branch, null, h == null ? null : h.name()), judge));
            } finally {
                lock.readLock().unlock();
            }
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
        ChunkGraph g = graphOf(git, commit);
        synchronized (atCache) {
            atCache.put(commit, g);
        }
        return g;
    }

    /** The chunk graph of {@code commit}'s tree in {@code repo} alone: its memory files and chunk files. */
    public static ChunkGraph graphOf(GitStore repo, ObjectId commit) throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        for (String p : repo.listFiles(commit)) {
            if (RootLayout.isContentFile(p)) {
                repo.read(commit, p).ifPresent(b -> files.put(p, new String(b, StandardCharsets.UTF_8)));
            }
        }
        return graphOf(files);
    }

    /** The chunk graph of the given memory files and chunk files (texts by path) alone. */
    public static ChunkGraph graphOf(Map<String, String> files) {
        ChunkGraph g = new ChunkGraph();
        build(files, new HashMap<>(), new HashMap<>()).forEach(g::put);
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

    /** Chunk count of the read graph (for ping and tests). */
    public int size() {
        awaitPublished();
        lock.readLock().lock();
        try {
            return readGraph.size();
        } finally {
            lock.readLock().unlock();
        }
    }
}
