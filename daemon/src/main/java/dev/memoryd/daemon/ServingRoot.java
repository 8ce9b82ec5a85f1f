package dev.memoryd.daemon;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.branch.Branches;
import dev.memoryd.daemon.conversation.ConversationStore;
import dev.memoryd.daemon.drift.DriftQueue;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.history.SectionIndex;
import dev.memoryd.daemon.locks.SectionLocks;
import dev.memoryd.daemon.notes.NoteImport;
import dev.memoryd.daemon.peers.PeerConversations;
import dev.memoryd.daemon.peers.PeerMount;
import dev.memoryd.daemon.peers.PeerRouting;
import dev.memoryd.daemon.peers.PeerSearch;
import dev.memoryd.daemon.peers.Peers;
import dev.memoryd.daemon.promotions.Promotions;
import dev.memoryd.daemon.proposals.ProposalBook;
import dev.memoryd.daemon.read.ReadResult;
import dev.memoryd.daemon.read.RootReads;
import dev.memoryd.daemon.refs.RefStore;
import dev.memoryd.daemon.search.SearchIndex;
import dev.memoryd.daemon.slices.SliceStore;
import dev.memoryd.daemon.slip.SlipRelay;
import dev.memoryd.daemon.substrate.ChunkStore;
import dev.memoryd.daemon.watch.HumanWatcher;
import dev.memoryd.daemon.write.ResetRecovery;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.slices.LinkGraph;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.ContentHasher;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.IdGenerator;
import dev.memoryd.ledger.Journal;
import dev.memoryd.ledger.KeyCheck;
import dev.memoryd.ledger.KeyRing;
import dev.memoryd.ledger.Ledger;
import dev.memoryd.ledger.LedgerOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import java.util.logging.Logger;

/**
 * A root served by the daemon: the one writer of the checked-out branch (recovered and started)
 * and every room on it, the other branches' writers, sync, the search index, the mounted peers and
 * the watcher of humans' edits. Reads that take a path or slice id go through {@link PeerRouting}
 * (a peer's {@code NAME:} reference is read from that peer); every other read is {@link #reads()},
 * the root's own read-only view. Reads are thread-safe and may run while writes are in flight;
 * writes go through the writers. The caller holds the root's daemon lock.
 *
 * <p>Longer than a room: it is the one place the serving rooms are opened in order, wired to each
 * other and closed in reverse, and the handlers reach each room through it; every room's logic is
 * its own class.
 */
public final class ServingRoot implements RootReads, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ServingRoot.class.getName());

    private final MemorydConfig cfg;
    private final Instant started;
    private final RootSettings settings;
    private final Peers peers;
    /** The content hasher of the current key version; replaced when the key rotates. */
    private final AtomicReference<ContentHasher> hasher;

    private final ReadOnlyRoot view;
    private final PeerRouting routing;
    private final Ledger ledger;
    private final WriterRooms rooms;
    private final SearchIndex search;
    private final Branches branches;
    private final dev.memoryd.daemon.sync.Sync sync;
    private HumanWatcher watcher; // until startWatching: tests that script edits capture them with captureNow

    private ServingRoot(MemorydConfig cfg) throws IOException {
        ReadOnlyRoot.requireRepository(cfg);
        this.cfg = cfg;
        this.started = cfg.clock().instant();
        try {
            this.settings = RootSettings.load(cfg.root());
            this.peers = Peers.open(cfg.root(), mounts(settings.peers(), cfg.peers()));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(cfg.root() + ": " + e.getMessage(), e);
        }
        KeyRing keys = KeyCheck.loadFor(cfg.keyFile(), cfg.ledgerDir()); // before anything below repairs or appends
        this.hasher = new AtomicReference<>(keys.contentHasher());
        GitStore git = GitStore.open(cfg.root(), cfg.branch());
        this.view = new ReadOnlyRoot(cfg, git, hasher::get, this::chain);
        this.routing = new PeerRouting(peers, view, text -> hasher.get().hash(text));
        IdGenerator ids = new IdGenerator(cfg.clock(), cfg.random());
        BranchName branch = new BranchName(cfg.branch());
        BranchName own = branch.onReplica(git.replica());
        git.removeStaleLocks();
        view.tree().removeTempFiles();
        for (String note : ResetRecovery.restore(git, cfg.root(), own)) {
            LOG.warning(note);
        }
        this.ledger = Ledger.open(cfg.ledgerDir(), keys, new LedgerOptions(cfg.segmentLines(), ids));
        Chain chain = ledger.chain(own);
        List<String> notes = new ArrayList<>();
        Journal journal;
        try {
            journal = Journal.openFor(cfg.stateDir().resolve("ledger.journal"), chain, notes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the ledger journal in " + cfg.stateDir(), e);
        }
        notes.forEach(LOG::warning);
        Branches.forkReplicaChain(git, chain, ids, cfg.clock()); // a clone's first start
        this.search = new SearchIndex(cfg.root(), cfg.branch(), cfg.halfLife());
        this.rooms = new WriterRooms(
                view,
                ledger,
                chain,
                chain,
                Optional.of(journal),
                hasher,
                ids,
                peers,
                settings.promotionMinFiles(),
                List.of(search));
        WritePipeline writer = rooms.writer;
        writer.recover();
        rooms.chunks.load(); // after recovery: it reads the recovered files
        writer.start();
        this.branches = new Branches(
                cfg.root(),
                view.grammars(),
                ledger,
                git,
                writer,
                rooms.chunks,
                text -> hasher.get().hash(text),
                ids,
                cfg.clock(),
                cfg.maxBatch(),
                w -> {
                    SectionLocks.registerReplayer(w);
                    Promotions.registerReplayer(w);
                });
        branches.load(); // finishes a branch create or delete a crash cut short
        this.sync = new dev.memoryd.daemon.sync.Sync(cfg.root(), git, ledger, branches);
    }

    /**
     * Opens a root for serving writes; the caller holds the root's daemon lock. The key file must
     * exist ({@link Memoryd#createKeyIfMissing} makes one) and be the one the ledger was written with.
     *
     * @throws KeyRing.MissingKeyFile when it does not exist
     * @throws KeyCheck.WrongKeyFile when it is another key, before anything is repaired or written
     */
    static ServingRoot open(MemorydConfig cfg) throws IOException {
        return new ServingRoot(cfg);
    }

    /** The root's own mounts, each replaced by a command-line mount of the same name, then the other command-line ones. */
    private static List<PeerMount> mounts(List<PeerMount> own, List<PeerMount> given) {
        Map<String, PeerMount> byName = new LinkedHashMap<>();
        own.forEach(m -> byName.put(m.name(), m));
        given.forEach(m -> byName.put(m.name(), m));
        return List.copyOf(byName.values());
    }

    /** A chain as the open ledger holds it; one it has not opened (a branch with no chain) from disk, or empty. */
    private Iterator<Event> chain(BranchName b) throws IOException {
        if (b.equals(new BranchName(cfg.branch()).onReplica(view.git().replica()))
                || ledger.branches().contains(b)) {
            return ledger.chain(b).read(1);
        }
        return Ledger.readOnly(cfg.ledgerDir(), b);
    }

    public MemorydConfig config() {
        return cfg;
    }

    /** The root's own settings ({@link RootSettings#FILE}), as read when the daemon started. */
    public RootSettings settings() {
        return settings;
    }

    /** The root's own files, grammar, ledger reads and verification; closed with this root. */
    public ReadOnlyRoot reads() {
        return view;
    }

    /** The peers mounted read-only beside this root. */
    public Peers peers() {
        return peers;
    }

    /** Reads a memory file (or one section), a peer's at its mounted commit, with hashes. */
    public Outcome<ReadResult> read(String path, String section, String at) throws IOException {
        return read(path, section, at, true);
    }

    /**
     * As the root's read; a working-tree read of a file whose open drift item holds a person's
     * unrecorded edit names that item, since its content is not the commit's.
     */
    @Override
    public Outcome<ReadResult> read(String path, String section, String at, boolean hashes) throws IOException {
        Outcome<ReadResult> read = routing.read(path, section, at, hashes);
        if (at == null
                && read instanceof Outcome.Ok<ReadResult> ok
                && ok.value().peer().isEmpty()) {
            Optional<dev.memoryd.daemon.write.DriftView.Item> open =
                    rooms.drift.openOn(RepoPath.of(ok.value().path()));
            if (open.isPresent()) {
                return Outcome.ok(ok.value().withDrift(open.get().id()));
            }
        }
        return read;
    }

    @Override
    public Outcome<List<LinkGraph.ExploredLink>> explore(String id, String rel, boolean infer) throws IOException {
        return routing.explore(id, rel, infer);
    }

    /** The text of slice {@code id}: a peer's ({@code NAME:id}, at the commit the peer is read at) or the served root's. */
    @Override
    public Optional<String> sliceText(String id) throws IOException {
        return routing.sliceText(id);
    }

    public PingInfo ping() {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        var head = view.git().head();
        try {
            return new PingInfo(
                    Memoryd.VERSION,
                    Memoryd.PROTOCOL_VERSION,
                    cfg.root().toString(),
                    cfg.branch(),
                    head == null ? null : head.name(),
                    started,
                    // Lets a benchmark tell a warmed daemon from one still compiling its hot paths.
                    java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime(),
                    jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1,
                    rooms.writer.stats().snapshot(),
                    writerState(),
                    watcher == null ? Map.of("state", "off") : watcher.health(),
                    rooms.drift.list().size(),
                    peers.describe());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The writer's health for {@code ping}, with {@code git_in_progress} while a git command waits
     * half-way, {@code line_ends} while git would convert memory files' line ends, {@code
     * index_format} while git's index is split or sparse, {@code
     * unmerged} while files wait in conflict in git's index, {@code staged} while files the human
     * staged wait for their commit and {@code put_back} once a file git rolled back without a
     * commit was written back.
     */
    private Map<String, Object> writerState() {
        Map<String, Object> w =
                new java.util.LinkedHashMap<>(rooms.writer.health().toMap());
        rooms.writer.gitInProgress().ifPresent(op -> w.put("git_in_progress", op));
        rooms.writer.lineEnds().ifPresent(cause -> w.put("line_ends", cause));
        rooms.writer.indexFormat().ifPresent(kind -> w.put("index_format", kind));
        List<String> unmerged = rooms.writer.unmerged();
        if (!unmerged.isEmpty()) {
            w.put("unmerged", unmerged);
        }
        List<dev.memoryd.daemon.write.StagedFile> staged = rooms.writer.stagedWaiting();
        if (!staged.isEmpty()) {
            w.put(
                    "staged",
                    staged.stream()
                            .map(f -> {
                                Map<String, Object> o = new LinkedHashMap<>();
                                o.put("path", f.path());
                                o.put("since", f.since().toString());
                                o.put("captured_by", f.capturedBy().toString());
                                return o;
                            })
                            .toList());
        }
        rooms.writer.lastPutBack().ifPresent(b -> {
            Map<String, Object> o = new java.util.LinkedHashMap<>();
            o.put("path", b.path());
            o.put("at", b.at().toString());
            o.put("count", b.count());
            w.put("put_back", o);
        });
        return w;
    }

    /**
     * Waits until every write answered at ledger durability is published, so a read made now sees
     * it: empty then, else why it cannot (the refusal for the read).
     */
    public Optional<Failure> awaitPublished() {
        try {
            return rooms.writer.awaitPublished();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(Failure.of(dev.memoryd.daemon.api.ErrorReason.UNAVAILABLE, "memoryd is shutting down"));
        }
    }

    public CompletableFuture<WriteOutcome> write(WriteRequest req) {
        return rooms.writer.submit(req);
    }

    /**
     * Runs {@code work} on the checked-out branch's writer thread between two batches, in the
     * order it was queued among writes: for tests that hold the writer at a known point.
     */
    <T> CompletableFuture<T> betweenBatches(java.util.concurrent.Callable<T> work) {
        return rooms.writer.exclusive(work);
    }

    /** See {@link WritePipeline#beforeIndexLock}: for tests, on the checked-out branch's writer. */
    void beforeIndexLock(Runnable r) {
        rooms.writer.beforeIndexLock(r);
    }

    /** See {@link WritePipeline#beforeIndexLook}: for tests, on the checked-out branch's writer. */
    void beforeIndexLook(Runnable r) {
        rooms.writer.beforeIndexLook(r);
    }

    /** A write to {@code branch} (null: the checked-out one); an unknown branch fails with not_found. */
    public Outcome<CompletableFuture<WriteOutcome>> write(WriteRequest req, String branch) throws IOException {
        Optional<Failure> onPeer = routing.refuseWrite(req.ops(), "write");
        if (onPeer.isPresent()) {
            return Outcome.fail(onPeer.get());
        }
        Outcome<WritePipeline> w = branches.writer(branch);
        if (w instanceof Outcome.Failed<WritePipeline> f) {
            return Outcome.fail(f.failure());
        }
        return Outcome.ok(((Outcome.Ok<WritePipeline>) w).value().submit(req));
    }

    /**
     * Imports markdown notes into the notes file of {@code user} (or of its part {@code part}), one
     * declaration each, appended to {@code section} ({@link NoteImport}); {@code overCap} (null:
     * none) lets them go past the section's word cap, as a write's override. A missing notes file
     * or section fails before anything is written; each note's own refusal is in its result and the
     * others carry on.
     */
    public Outcome<List<NoteImport.Result>> importNotes(
            String user, String part, String section, List<NoteImport.Note> notes, String actor, String overCap)
            throws IOException, InterruptedException {
        String path = "users/" + user + (part == null ? "" : "/parts/" + part) + "/notes.md";
        RepoPath file;
        try {
            file = RepoPath.of(path);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(
                    ErrorReason.INVALID_REQUEST, "not a notes file path: " + path + " (" + e.getMessage() + ")");
        }
        if (read(path, section, null) instanceof Outcome.Failed<ReadResult> f) {
            return Outcome.fail(f.failure());
        }
        return Outcome.ok(NoteImport.run(file, section, notes, actor, overCap, rooms.writer::submit));
    }

    /**
     * Rotates the ledger key: the key file gains a new salt version and makes it current (written
     * durably first), then a {@code key_rotate} line, signed with the retiring key, records the
     * retirement point; every later line is signed with the new key.
     */
    public synchronized CompletableFuture<WriteOutcome> rotateKey(String actor) {
        int retiring = KeyRing.loadExisting(cfg.keyFile()).current();
        KeyRing next = KeyRing.rotate(cfg.keyFile(), cfg.random());
        return rooms.writer.submit(WriteRequest.of(
                new KeyRotate(retiring, next.current(), next, cfg.keyFile(), hasher),
                "rotate the ledger key",
                actor == null ? "maintainer" : actor));
    }

    /**
     * Starts capturing humans' edits of the working tree and commits made with git (serving
     * daemons; tests that script edits call {@link #captureNow} instead, or start it too).
     */
    public synchronized void startWatching() throws IOException {
        if (watcher == null) {
            watcher =
                    new HumanWatcher(cfg.root(), rooms.writer, view.git(), cfg.quiet(), cfg.rescanEvery(), cfg.clock());
            watcher.start();
        }
    }

    /** The watcher, once started. */
    public Optional<HumanWatcher> watcher() {
        return Optional.ofNullable(watcher);
    }

    /** Captures humans' edits of the given files (every memory file when empty) and their git commits now. */
    public CompletableFuture<WriteOutcome> captureNow(List<RepoPath> paths) throws IOException {
        return paths.isEmpty() ? rooms.writer.captureAll() : rooms.writer.capture(paths);
    }

    /**
     * {@code replay --verify} ({@link ReplayCheck}), on the writer thread between batches, so files,
     * ledger and branch are at rest.
     */
    public CompletableFuture<ReplayCheck.ReplayReport> replayVerify(LongConsumer progress) {
        return rooms.writer.exclusive(() -> ReplayCheck.run(rooms.writer, view.tree(), cfg, progress));
    }

    /** {@code replay --onto-latest} (see {@link WritePipeline#ontoLatest}); hashes use each line's key version. */
    public CompletableFuture<List<WritePipeline.OntoFile>> replayOntoLatest() {
        KeyRing ring = KeyRing.loadExisting(cfg.keyFile());
        return rooms.writer.exclusive(() -> rooms.writer.ontoLatest(v -> {
            ContentHasher h = ring.hasVersion(v) ? ring.contentHasher(v) : hasher.get();
            return h::hash;
        }));
    }

    /** {@code sync}: fetch from {@code remote}, merge section by section, push (see {@link dev.memoryd.daemon.sync.Sync}). */
    public Outcome<dev.memoryd.daemon.sync.SyncReport> sync(
            String remote, dev.memoryd.daemon.sync.SyncResolutions resolutions, String actor) throws IOException {
        return sync.run(remote, resolutions, actor);
    }

    /** Branches: create, list, delete, merge, and their writers. */
    public Branches branches() {
        return branches;
    }

    public ProposalBook proposals() {
        return rooms.proposals;
    }

    public DriftQueue drift() {
        return rooms.drift;
    }

    /** Which events touched which section, for the checked-out branch's chain. */
    public SectionIndex sections() {
        return rooms.sections;
    }

    public SectionLocks locks() {
        return rooms.locks;
    }

    /** Maintainers' changes to the grammar: promotions and caps. */
    public Promotions promotions() {
        return rooms.promotions;
    }

    /** File references reconciled against Git history. */
    public RefStore refs() {
        return rooms.refs;
    }

    public SlipRelay slip() {
        return rooms.slip;
    }

    /** Generic slices: create and append rows (reading and listing them is {@link #reads()}'s). */
    public SliceStore slices() {
        return rooms.slices;
    }

    /** The substrate: declare, scope, traverse. */
    public ChunkStore chunks() {
        return rooms.chunks;
    }

    /** Stored conversations and context selection. */
    public ConversationStore conversations() {
        return rooms.conversations;
    }

    /**
     * {@code search} of the checked-out branch's working tree (as indexed) and of every mounted
     * peer at the commit it is read at: the best {@code limit} hits by score, each peer's hit
     * naming its {@code peer}.
     */
    public List<dev.memoryd.daemon.search.SearchHit> search(String q, int limit, String source)
            throws IOException, SearchIndex.BadQuery, InterruptedException {
        Instant now = cfg.clock().instant();
        return PeerSearch.merge(
                new ArrayList<>(search.search(q, limit, now, source)), peers, q, limit, cfg.halfLife(), now, source);
    }

    /**
     * The SliceExport of SlicePolicy v1 for {@code anchor}: a turn of this root's conversations, or
     * {@code NAME:turn} of a mounted peer's, at the commit it is read at.
     *
     * @throws dev.memoryd.grammar.policy.PolicyInputException when the anchor is no stored turn
     */
    public dev.memoryd.daemon.conversation.ContextSlice context(
            String anchor, dev.memoryd.grammar.policy.PolicyConfig policy) throws IOException {
        var onPeer = PeerConversations.context(peers, anchor, policy);
        return onPeer.isPresent() ? onPeer.get() : rooms.conversations.context(anchor, policy);
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
        branches.close();
        rooms.writer.close();
        rooms.chunks.close();
        try {
            search.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ledger.close();
        try {
            peers.close();
        } catch (IOException e) {
            LOG.warning("closing the peers: " + e.getMessage());
        }
        view.close();
    }
}
