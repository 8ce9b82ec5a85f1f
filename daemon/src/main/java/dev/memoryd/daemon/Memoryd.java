package dev.memoryd.daemon;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.git.CommitBatch;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.LintProblem;
import dev.memoryd.grammar.Linter;
import dev.memoryd.grammar.MemoryDocument;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.ContentHasher;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.EvidenceToken;
import dev.memoryd.ledger.IdGenerator;
import dev.memoryd.ledger.KeyRing;
import dev.memoryd.ledger.Ledger;
import dev.memoryd.ledger.LedgerOptions;
import dev.memoryd.ledger.Verifier;
import dev.memoryd.ledger.VerifyResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The memoryd service API over one memory root: the socket handlers and the CLI call this and
 * nothing else. Reads are thread-safe and may run while writes are in flight; writes go through
 * the single {@link WritePipeline}. {@link #openReadOnly} serves reads, lint and verify without
 * a daemon (and without taking the writer's lock or changing anything on disk).
 */
public final class Memoryd implements AutoCloseable {
    public static final String VERSION = Version.VERSION;
    public static final String PROTOCOL_VERSION = "1";
    /** Size limit a slice's contract {@code overflow} policy applies to (bytes of body). */
    public static final long MAX_SLICE_BODY = 1L << 20;

    private final MemorydConfig cfg;
    private final dev.memoryd.daemon.write.GrammarFiles grammars;
    private final KeyRing keys;
    /** The content hasher of the current key version; replaced when the key rotates. */
    private final java.util.concurrent.atomic.AtomicReference<ContentHasher> hasher;

    private final GitStore git;
    private final WorkTree tree;
    private final Ledger ledger; // null when read-only
    private final WritePipeline writer; // null when read-only
    private final dev.memoryd.daemon.slip.SlipRelay slip; // null when read-only
    private final dev.memoryd.daemon.conversation.ConversationStore conversations; // null when read-only
    private final dev.memoryd.daemon.slices.SliceStore slices;
    private final dev.memoryd.daemon.search.SearchIndex search; // null when read-only
    private final dev.memoryd.daemon.drift.DriftQueue drift; // null when read-only
    private final dev.memoryd.daemon.proposals.ProposalBook proposals; // null when read-only
    private final dev.memoryd.daemon.refs.RefStore refs; // null when read-only
    private final dev.memoryd.daemon.history.SectionIndex sections; // null when read-only
    private final dev.memoryd.daemon.locks.SectionLocks locks; // null when read-only
    private final dev.memoryd.daemon.promotions.Promotions promotions; // null when read-only
    private final dev.memoryd.daemon.git.EventCommits eventCommits;
    private dev.memoryd.daemon.watch.HumanWatcher watcher; // null when read-only or not watching
    private final dev.memoryd.daemon.substrate.ChunkStore chunks; // null when read-only
    private final dev.memoryd.daemon.branch.Branches branches; // null when read-only
    private final dev.memoryd.daemon.sync.Sync sync; // null when read-only
    private final Instant started;
    private final RootSettings settings;
    /** The roots mounted read-only beside this one (none unless serving). */
    private final dev.memoryd.daemon.peers.Peers peers;

    private final Linter linter = new Linter();
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(Memoryd.class.getName());

    /**
     * How a root is opened. SERVE: the daemon (recovers, writes). READ: reads, lint and verify; the
     * key is loaded only when a read needs hashes. CHECK: {@code replay --verify} without a daemon:
     * the writer is built to replay, but nothing is recovered, started or written.
     */
    private enum Mode {
        SERVE,
        READ,
        CHECK
    }

    private final Mode mode;

    private Memoryd(MemorydConfig cfg, Mode mode) throws IOException {
        this.cfg = cfg;
        this.mode = mode;
        this.grammars = new dev.memoryd.daemon.write.GrammarFiles(Templates.load(cfg.templatesDir()));
        this.tree = new WorkTree(cfg.root(), cfg.stateDir().resolve("spare"));
        this.started = cfg.clock().instant();
        if (!Files.isDirectory(cfg.root().resolve(".git"))) {
            throw new IllegalStateException("no memory repository at " + cfg.root()
                    + "; create one with 'memoryd init --root " + cfg.root() + "'");
        }
        try {
            // Only a serving daemon records anything the settings decide; reads and checks never fail on them.
            this.settings = mode == Mode.SERVE ? RootSettings.load(cfg.root()) : null;
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(cfg.root() + ": " + e.getMessage(), e);
        }
        // Only 'init' and 'serve' make a key (see createKeyIfMissing): a key made here would sign
        // nothing this root's ledger holds, and a later serve would write with it.
        try {
            this.peers = mode == Mode.SERVE
                    ? dev.memoryd.daemon.peers.Peers.open(cfg.root(), mounts(settings.peers(), cfg.peers()))
                    : dev.memoryd.daemon.peers.Peers.NONE;
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(cfg.root() + ": " + e.getMessage(), e);
        }
        this.keys = mode == Mode.READ ? null : KeyRing.loadExisting(cfg.keyFile());
        this.hasher = new java.util.concurrent.atomic.AtomicReference<>(keys == null ? null : keys.contentHasher());
        this.git = GitStore.open(cfg.root(), cfg.branch());
        this.eventCommits = new dev.memoryd.daemon.git.EventCommits(git.repository(), git::head);
        if (mode == Mode.READ) {
            this.ledger = null;
            this.writer = null;
            this.slip = null;
            this.conversations = null;
            this.slices = new dev.memoryd.daemon.slices.SliceStore(null, null, cfg.root(), MAX_SLICE_BODY);
            this.search = null;
            this.drift = null;
            this.proposals = null;
            this.refs = null;
            this.sections = null;
            this.locks = null;
            this.promotions = null;
            this.chunks = null;
            this.branches = null;
            this.sync = null;
            return;
        }
        boolean serving = mode == Mode.SERVE;
        IdGenerator ids = new IdGenerator(cfg.clock(), cfg.random());
        if (serving) {
            git.removeStaleLocks();
            tree.removeTempFiles();
            for (String note : dev.memoryd.daemon.write.ResetRecovery.restore(
                    git, cfg.root(), new BranchName(cfg.branch()).onReplica(git.replica()))) {
                LOG.warning(note);
            }
        }
        LedgerOptions opts = new LedgerOptions(cfg.segmentLines(), ids);
        this.ledger =
                serving ? Ledger.open(cfg.ledgerDir(), keys, opts) : Ledger.openReadOnly(cfg.ledgerDir(), keys, opts);
        BranchName branch = new BranchName(cfg.branch());
        Chain chain = ledger.chain(serving ? branch.onReplica(git.replica()) : checkedChain(branch));
        dev.memoryd.ledger.Journal journal = null;
        if (serving) {
            List<String> notes = new java.util.ArrayList<>();
            try {
                journal = dev.memoryd.ledger.Journal.openFor(cfg.stateDir().resolve("ledger.journal"), chain, notes);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot open the ledger journal in " + cfg.stateDir(), e);
            }
            notes.forEach(LOG::warning);
            dev.memoryd.daemon.branch.Branches.forkReplicaChain(git, chain, ids, cfg.clock()); // a clone's first start
        }
        WritePipeline.FileStore store = new WritePipeline.FileStore() {
            @Override
            public Optional<String> read(RepoPath p) throws IOException {
                return tree.read(p);
            }

            @Override
            public void writeAll(Map<String, byte[]> files) throws IOException {
                tree.writeAll(files);
            }

            @Override
            public WritePipeline.IoAction stage(Map<String, byte[]> files) throws IOException {
                WorkTree.Staged st = tree.stage(files);
                return st::publish;
            }

            @Override
            public WritePipeline.IoAction stage(
                    Map<String, byte[]> files,
                    Map<String, Optional<String>> expected,
                    java.util.function.Consumer<String> skipped)
                    throws IOException {
                WorkTree.Staged st = tree.stage(files);
                st.precheck(expected);
                return new WritePipeline.IoAction() {
                    @Override
                    public void run() throws IOException {
                        st.publish(expected, skipped, false);
                    }

                    @Override
                    public Map<String, java.nio.file.attribute.FileTime> modified() {
                        return st.modified();
                    }

                    @Override
                    public void settle() throws IOException {
                        st.syncDirs();
                    }

                    @Override
                    public void abort() throws IOException {
                        st.abort();
                    }
                };
            }

            @Override
            public Path root() {
                return cfg.root();
            }
        };
        this.writer = new WritePipeline(
                grammars, store, git, chain, text -> hasher.get().hash(text), ids, cfg.clock(), branch, cfg.maxBatch());
        if (journal != null) {
            writer.useJournal(journal);
        }
        // Extensions register before recovery, which may need to redo their events.
        this.slip = new dev.memoryd.daemon.slip.SlipRelay(writer);
        slip.load(chain.read(1));
        this.conversations = new dev.memoryd.daemon.conversation.ConversationStore(writer, ids);
        conversations.load(chain.read(1));
        this.slices = new dev.memoryd.daemon.slices.SliceStore(writer, ids, cfg.root(), MAX_SLICE_BODY);
        this.search =
                serving ? new dev.memoryd.daemon.search.SearchIndex(cfg.root(), cfg.branch(), cfg.halfLife()) : null;
        if (search != null) {
            writer.addListener(search);
        }
        this.chunks = new dev.memoryd.daemon.substrate.ChunkStore(writer, ids, cfg.root(), git, cfg.branch());
        writer.addListener(chunks);
        chunks.mount(peers);
        writer.registerReplayer(
                Verifier.KEY_ROTATE,
                evs -> new KeyRotate(
                        evs.get(0).payload().path("retired").asInt(),
                        evs.get(0).payload().path("current").asInt(),
                        null,
                        null,
                        hasher));
        this.drift = new dev.memoryd.daemon.drift.DriftQueue(writer);
        drift.load(chain.read(1));
        writer.addListener(drift);
        writer.setDriftView(drift);
        this.proposals = new dev.memoryd.daemon.proposals.ProposalBook(writer);
        proposals.load(chain.read(1));
        writer.addListener(proposals);
        this.refs = new dev.memoryd.daemon.refs.RefStore(writer, ids, cfg.root(), drift);
        Chain own = ledger.chain(new BranchName(cfg.branch()).onReplica(git.replica()));
        this.sections = new dev.memoryd.daemon.history.SectionIndex(own::head, own::read, cfg.segmentLines());
        this.locks = new dev.memoryd.daemon.locks.SectionLocks(writer);
        this.promotions = new dev.memoryd.daemon.promotions.Promotions(
                writer,
                this::grammar,
                this::memoryFilesOnDisk,
                p -> {
                    try {
                        return tree.read(p);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                },
                (settings == null ? RootSettings.DEFAULTS : settings).promotionMinFiles());
        dev.memoryd.daemon.branch.Branches.registerReplayers(writer);
        writer.setChains(b -> ledger.branches().contains(b) ? Optional.of(ledger.chain(b)) : Optional.empty());
        if (!serving) {
            this.branches = null;
            this.sync = null;
            return;
        }
        writer.recover();
        chunks.load(); // after recovery: it reads the recovered files
        writer.start();
        this.branches = new dev.memoryd.daemon.branch.Branches(
                cfg.root(),
                grammars,
                ledger,
                git,
                writer,
                chunks,
                text -> hasher.get().hash(text),
                ids,
                cfg.clock(),
                cfg.maxBatch(),
                w -> {
                    dev.memoryd.daemon.locks.SectionLocks.registerReplayer(w);
                    dev.memoryd.daemon.promotions.Promotions.registerReplayer(w);
                });
        branches.load(); // finishes a branch create or delete a crash cut short
        this.sync = new dev.memoryd.daemon.sync.Sync(cfg.root(), git, ledger, branches);
    }

    /** The root's own mounts, each replaced by a command-line mount of the same name, then the other command-line ones. */
    private static List<dev.memoryd.daemon.peers.PeerMount> mounts(
            List<dev.memoryd.daemon.peers.PeerMount> own, List<dev.memoryd.daemon.peers.PeerMount> given) {
        Map<String, dev.memoryd.daemon.peers.PeerMount> byName = new java.util.LinkedHashMap<>();
        own.forEach(m -> byName.put(m.name(), m));
        given.forEach(m -> byName.put(m.name(), m));
        return List.copyOf(byName.values());
    }

    /**
     * The chain a check replays: the one the branch head records (on a plain {@code git clone},
     * another root's), when the ledger holds it; else this root's own.
     */
    private BranchName checkedChain(BranchName branch) throws IOException {
        BranchName own = branch.onReplica(git.replica());
        if (git.head() == null) {
            return own;
        }
        return LedgerTrailers.ledgerHeadAt(git, git.head(), branch.value())
                .map(LedgerTrailers.RecordedHead::chain)
                .filter(c -> Files.isDirectory(cfg.ledgerDir().resolve(c.value())))
                .orElse(own);
    }

    /** {@code sync}: fetch from {@code remote}, merge section by section, push (see {@link dev.memoryd.daemon.sync.Sync}). */
    public Outcome<com.fasterxml.jackson.databind.node.ObjectNode> sync(
            String remote, com.fasterxml.jackson.databind.JsonNode resolutions, String actor) throws IOException {
        servingOnly(sync);
        return sync.run(remote, resolutions, actor);
    }

    /**
     * {@code memoryd clone}: a new root cloned from {@code url} (remote {@code origin}) that writes
     * its own ledger chains as replica {@code replica} (generated when null), so it can sync with
     * the root it came from and any other clone. Its chain starts at its first {@code serve}.
     */
    public static List<String> cloneRoot(MemorydConfig cfg, String url, String replica) throws IOException {
        Path root = cfg.root();
        if (Files.exists(root)
                && (!Files.isDirectory(root) || Files.list(root).findAny().isPresent())) {
            throw new IllegalArgumentException(root + " exists and is not empty; clone into a new directory");
        }
        String id = replica;
        if (id == null) {
            StringBuilder sb = new StringBuilder("r");
            String alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
            for (int i = 0; i < 7; i++) {
                sb.append(alphabet.charAt(cfg.random().nextInt(alphabet.length())));
            }
            id = sb.toString();
        }
        if (!BranchName.REPLICA.matcher(id).matches()) {
            throw new IllegalArgumentException("invalid replica id '" + id + "': use 1-32 of a-z, 0-9 and -");
        }
        List<String> did = new ArrayList<>();
        try (org.eclipse.jgit.api.Git g = org.eclipse.jgit.api.Git.cloneRepository()
                .setURI(url)
                .setDirectory(root.toFile())
                .setBranch(cfg.branch())
                .setRemote("origin")
                .call()) {
            org.eclipse.jgit.lib.StoredConfig c = g.getRepository().getConfig();
            c.setBoolean("core", null, "autocrlf", false);
            c.setString("memoryd", null, "replica", id);
            c.save();
            if (g.getRepository().resolve(org.eclipse.jgit.lib.Constants.R_HEADS + cfg.branch()) == null) {
                throw new IllegalArgumentException(url + " has no branch '" + cfg.branch() + "' (use --branch)");
            }
        } catch (org.eclipse.jgit.api.errors.GitAPIException e) {
            throw new IOException("cannot clone " + url + ": " + e.getMessage(), e);
        }
        did.add("cloned " + url + " into " + root + " (remote origin, branch " + cfg.branch() + ")");
        did.add("replica id " + id + ": this root writes its ledger chains as <branch>@" + id);
        Path state = cfg.stateDir();
        Files.createDirectories(state);
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        if (!Files.exists(cfg.keyFile())) {
            KeyRing.loadOrCreate(cfg.keyFile(), cfg.random());
            did.add("created a NEW key file " + cfg.keyFile() + ": lines written elsewhere will not verify with it;"
                    + " copy the other roots' key file there instead (mode 0600)");
        }
        return did;
    }

    /**
     * Starts capturing humans' edits of the working tree and commits made with git (serving
     * daemons; tests that script edits call {@link #captureNow} instead, or start it too).
     */
    public synchronized void startWatching() throws IOException {
        servingOnly(writer);
        if (watcher == null) {
            watcher = new dev.memoryd.daemon.watch.HumanWatcher(
                    cfg.root(), writer, git, cfg.quiet(), cfg.rescanEvery(), cfg.clock());
            watcher.start();
        }
    }

    /** The watcher, once started. */
    public Optional<dev.memoryd.daemon.watch.HumanWatcher> watcher() {
        return Optional.ofNullable(watcher);
    }

    /** Captures humans' edits of the given files (every memory file when empty) and their git commits now. */
    public CompletableFuture<WriteOutcome> captureNow(List<RepoPath> paths) throws IOException {
        servingOnly(writer);
        return paths.isEmpty() ? writer.captureAll() : writer.capture(paths);
    }

    /** What {@code replay --verify} found. */
    public record ReplayReport(
            long events,
            long declarations,
            int files,
            List<Difference> differences,
            List<dev.memoryd.daemon.write.LedgerReplay.ReplayHalt> halts,
            long nanos) {
        public boolean ok() {
            return differences.isEmpty() && halts.isEmpty();
        }
    }

    /** One file whose replayed text is not what the working tree holds. */
    public record Difference(String path, String kind, List<String> sections, String detail) {}

    /**
     * Rebuilds every memory file (and {@code .slices/} file) from the ledger alone, from empty, and
     * compares each byte for byte with the working tree, naming the sections that differ. Runs on
     * the writer thread between batches, so files, ledger and branch are at rest.
     */
    public CompletableFuture<ReplayReport> replayVerify(java.util.function.LongConsumer progress) {
        servingOnly(writer);
        java.util.concurrent.Callable<ReplayReport> job = () -> {
            long t0 = System.nanoTime();
            dev.memoryd.daemon.write.LedgerReplay.ReplayState st = writer.replayFromEmpty(progress);
            java.util.Map<String, String> expected = new java.util.TreeMap<>();
            st.files().forEach((p, t) -> {
                // The root's grammar is replayed too: each event is redone under the grammar then in force.
                if (RootLayout.isContentFile(p.value()) || dev.memoryd.daemon.write.GrammarFiles.isGrammarFile(p)) {
                    expected.put(p.value(), t);
                }
            });
            java.util.Set<String> paths = new java.util.TreeSet<>(expected.keySet());
            paths.addAll(RootLayout.contentFilesOnDisk(cfg.root()));
            java.util.Set<String> halted = new java.util.HashSet<>();
            st.halts().forEach(h -> halted.add(h.path().value()));
            List<Difference> diffs = new ArrayList<>();
            for (String p : paths) {
                if (halted.contains(p)) {
                    continue;
                }
                Optional<String> disk = tree.read(RepoPath.of(p));
                String want = expected.get(p);
                if (disk.isPresent() && disk.get().equals(want)) {
                    continue;
                }
                if (want == null) {
                    diffs.add(new Difference(
                            p, "not_in_ledger", List.of(), "the working tree has a file no ledger event wrote"));
                } else if (disk.isEmpty()) {
                    diffs.add(new Difference(
                            p, "missing", List.of(), "the ledger writes this file but the working tree has none"));
                } else {
                    diffs.add(new Difference(
                            p,
                            "differs",
                            differingRegions(want, disk.get()),
                            "the working tree differs from the replayed text"));
                }
            }
            return new ReplayReport(
                    st.events(), st.groups(), expected.size(), diffs, st.halts(), System.nanoTime() - t0);
        };
        if (mode == Mode.CHECK) {
            try {
                return CompletableFuture.completedFuture(job.call()); // no writer thread runs: nothing moves meanwhile
            } catch (Exception e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return writer.exclusive(job);
    }

    /** {@code replay --onto-latest} (see {@link WritePipeline#ontoLatest}); hashes use each line's key version. */
    public CompletableFuture<List<WritePipeline.OntoFile>> replayOntoLatest() {
        servingOnly(writer);
        KeyRing ring = KeyRing.loadExisting(cfg.keyFile());
        return writer.exclusive(() -> writer.ontoLatest(v -> {
            ContentHasher h = ring.hasVersion(v) ? ring.contentHasher(v) : hasher.get();
            return h::hash;
        }));
    }

    /** Region keys (sections; {@code _head} for frontmatter and title) whose text differs. */
    static List<String> differingRegions(String a, String b) {
        java.util.Map<String, String> x = new java.util.LinkedHashMap<>();
        dev.memoryd.grammar.human.HumanEdits.regions(a).forEach(r -> x.put(r.key(), r.text()));
        java.util.Map<String, String> y = new java.util.LinkedHashMap<>();
        dev.memoryd.grammar.human.HumanEdits.regions(b).forEach(r -> y.put(r.key(), r.text()));
        java.util.Set<String> keys = new java.util.LinkedHashSet<>(x.keySet());
        keys.addAll(y.keySet());
        List<String> out = new ArrayList<>();
        for (String k : keys) {
            if (!java.util.Objects.equals(x.get(k), y.get(k))) {
                out.add(k);
            }
        }
        return out;
    }

    /** Proposals waiting for review (serving daemons only). */
    public dev.memoryd.daemon.proposals.ProposalBook proposals() {
        return servingOnly(proposals);
    }

    /** The drift queue (serving daemons only). */
    public dev.memoryd.daemon.drift.DriftQueue drift() {
        return servingOnly(drift);
    }

    /** Which events touched which section, for the checked-out branch's chain (not when opened read-only). */
    public dev.memoryd.daemon.history.SectionIndex sections() {
        return servingOnly(sections);
    }

    /** Users' section locks (not when opened read-only). */
    public dev.memoryd.daemon.locks.SectionLocks locks() {
        return servingOnly(locks);
    }

    /** Maintainers' changes to the grammar: promotions and caps (not when opened read-only). */
    public dev.memoryd.daemon.promotions.Promotions promotions() {
        return servingOnly(promotions);
    }

    private List<RepoPath> memoryFilesOnDisk() {
        try {
            return RootLayout.memoryFilesOnDisk(cfg.root()).stream()
                    .map(RepoPath::of)
                    .toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** File references reconciled against Git history (serving daemons only). */
    public dev.memoryd.daemon.refs.RefStore refs() {
        return servingOnly(refs);
    }

    /** A readable unified diff from a file's recorded text (the branch head's) to the given text. */
    public String diffFromRecorded(RepoPath path, String text) throws IOException {
        String recorded = git.head() == null
                ? ""
                : git.read(git.head(), path.value())
                        .map(b -> new String(b, StandardCharsets.UTF_8))
                        .orElse("");
        org.eclipse.jgit.diff.RawText a = new org.eclipse.jgit.diff.RawText(recorded.getBytes(StandardCharsets.UTF_8));
        org.eclipse.jgit.diff.RawText b =
                new org.eclipse.jgit.diff.RawText((text == null ? "" : text).getBytes(StandardCharsets.UTF_8));
        org.eclipse.jgit.diff.EditList edits = org.eclipse.jgit.diff.DiffAlgorithm.getAlgorithm(
                        org.eclipse.jgit.diff.DiffAlgorithm.SupportedAlgorithm.HISTOGRAM)
                .diff(org.eclipse.jgit.diff.RawTextComparator.DEFAULT, a, b);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (org.eclipse.jgit.diff.DiffFormatter f = new org.eclipse.jgit.diff.DiffFormatter(out)) {
            out.write(("--- a/" + path.value() + " (recorded)\n+++ b/" + path.value()
                            + (text == null ? " (deleted)" : " (drifted)") + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            f.format(edits, a, b);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * Opens a root for serving writes; the caller holds the root's daemon lock. The key file must
     * exist ({@link #createKeyIfMissing} makes one).
     *
     * @throws KeyRing.MissingKeyFile when it does not
     */
    public static Memoryd open(MemorydConfig cfg) throws IOException {
        return new Memoryd(cfg, Mode.SERVE);
    }

    /**
     * Opens a root for reads, lint and {@link #verify} without a daemon; changes nothing on disk.
     * The key file is read only when something needs it (hashes, verify), and never created.
     */
    public static Memoryd openReadOnly(MemorydConfig cfg) throws IOException {
        return new Memoryd(cfg, Mode.READ);
    }

    /**
     * Opens a root for {@link #replayVerify} without a daemon: no lock, no recovery, no writer
     * thread, and no byte written; the replayed chain is the one the branch head records.
     *
     * @throws KeyRing.MissingKeyFile when the key file does not exist
     */
    public static Memoryd openForCheck(MemorydConfig cfg) throws IOException {
        return new Memoryd(cfg, Mode.CHECK);
    }

    /** Creates the key file when there is none ({@code init} and {@code serve} only); true when it did. */
    public static boolean createKeyIfMissing(MemorydConfig cfg) {
        boolean missing = !Files.exists(cfg.keyFile(), java.nio.file.LinkOption.NOFOLLOW_LINKS);
        KeyRing.loadOrCreate(cfg.keyFile(), cfg.random());
        return missing;
    }

    /**
     * Creates a memory root: a Git repository (JGit) on the configured branch with a
     * {@code .gitignore} for local state, a 0700 state directory and the key file; optionally
     * copies an example tree in. Idempotent.
     */
    public static List<String> init(MemorydConfig cfg, Path exampleTree) throws IOException {
        List<String> did = new ArrayList<>();
        Path root = cfg.root();
        Files.createDirectories(root);
        if (!Files.isDirectory(root.resolve(".git"))) {
            GitStore.init(root, cfg.branch());
            did.add("created Git repository " + root);
        }
        Path state = cfg.stateDir();
        if (!Files.isDirectory(state)) {
            Files.createDirectories(state);
            did.add("created " + state);
        }
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        Path ignore = root.resolve(".gitignore");
        if (!Files.exists(ignore)) {
            Files.writeString(
                    ignore,
                    "# memoryd local state: socket, caches, indexes (rebuildable)\n.memoryd/\n"
                            + "# memoryd's temp files while it replaces a file (removed at start after a crash)\n*.memoryd-tmp\n");
            did.add("wrote .gitignore");
        }
        if (createKeyIfMissing(cfg)) {
            did.add("created key file " + cfg.keyFile() + " (mode 0600; keep it outside the repository)");
        }
        if (exampleTree != null) {
            try (Stream<Path> s = Files.walk(exampleTree)) {
                for (Path src : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                    Path dst = root.resolve("users")
                            .resolve(exampleTree.relativize(src).toString());
                    if (!Files.exists(dst)) {
                        Files.createDirectories(dst.getParent());
                        Files.copy(src, dst);
                    }
                }
            }
            did.add("copied example tree from " + exampleTree);
        }
        try (GitStore g = GitStore.open(root, cfg.branch())) {
            if (g.head() == null) {
                Map<String, byte[]> files = new java.util.LinkedHashMap<>();
                try (Stream<Path> s = Files.walk(root)) {
                    for (Path p : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                        String rel = root.relativize(p).toString().replace('\\', '/');
                        if (!rel.startsWith(".git/") && !rel.startsWith(".memoryd/")) {
                            files.put(rel, Files.readAllBytes(p));
                        }
                    }
                }
                Instant now = cfg.clock().instant();
                org.eclipse.jgit.lib.PersonIdent who = new org.eclipse.jgit.lib.PersonIdent(
                        "memoryd", "memoryd@localhost", now, java.time.ZoneOffset.UTC);
                try (CommitBatch b = g.batch()) {
                    b.commit(files, who, who, "memoryd: initialise memory repository\n");
                    b.publish().orThrow();
                    g.updateIndex(root, b.written());
                }
                did.add("made the initial commit");
            }
        }
        return did;
    }

    /** The root's own settings ({@link RootSettings#FILE}), as read when the daemon started (serving daemons only). */
    public RootSettings settings() {
        if (settings == null) {
            throw new IllegalStateException("the root's settings are read by a serving daemon only");
        }
        return settings;
    }

    public MemorydConfig config() {
        return cfg;
    }

    /** The grammar in force on the checked-out branch: its head's {@code templates/}, else the base. */
    public Grammar grammar() {
        org.eclipse.jgit.lib.ObjectId head = git.head();
        return grammars.inForce(p -> {
            try {
                return head == null
                        ? Optional.empty()
                        : git.read(head, p.value()).map(b -> new String(b, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    public ObjectNode ping() {
        ObjectNode r = JsonNodeFactory.instance.objectNode();
        r.put("version", VERSION);
        r.put("protocol", PROTOCOL_VERSION);
        r.put("root", cfg.root().toString());
        r.put("branch", cfg.branch());
        ObjectId h = git.head();
        r.put("head", h == null ? null : h.name());
        r.put("started", started.toString());
        // Lets a benchmark tell a warmed daemon from one still compiling its hot paths.
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        r.putObject("runtime")
                .put(
                        "uptime_ms",
                        java.lang.management.ManagementFactory.getRuntimeMXBean()
                                .getUptime())
                .put(
                        "jit_ms",
                        jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1);
        if (writer != null) {
            r.set(
                    "write_stats",
                    JsonNodeFactory.instance.pojoNode(writer.stats().snapshot()));
            r.set("writer", JsonNodeFactory.instance.pojoNode(writer.health().toMap()));
            r.set(
                    "watcher",
                    watcher == null ? JsonNodeFactory.instance.objectNode().put("state", "off") : watcher.health());
            r.put("drift_open", drift.list().size());
            try {
                r.set("peers", JsonNodeFactory.instance.pojoNode(peers.describe()));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return r;
    }

    public CompletableFuture<WriteOutcome> write(WriteRequest req) {
        servingOnly(writer);
        return writer.submit(req);
    }

    /**
     * Imports markdown notes into the notes file of {@code user} (or of its part {@code part}), one
     * declaration each, appended to {@code section} ({@link dev.memoryd.daemon.notes.NoteImport});
     * {@code overCap} (null: none) lets them go past the section's word cap, as a write's override.
     * A missing notes file or section fails before anything is written; each note's own refusal is
     * in its result and the others carry on.
     */
    public Outcome<List<dev.memoryd.daemon.notes.NoteImport.Result>> importNotes(
            String user,
            String part,
            String section,
            List<dev.memoryd.daemon.notes.NoteImport.Note> notes,
            String actor,
            String overCap)
            throws IOException, InterruptedException {
        servingOnly(writer);
        String path = "users/" + user + (part == null ? "" : "/parts/" + part) + "/notes.md";
        RepoPath file;
        try {
            file = RepoPath.of(path);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(
                    ErrorReason.INVALID_REQUEST, "not a notes file path: " + path + " (" + e.getMessage() + ")");
        }
        Outcome<ObjectNode> there = read(path, section, null);
        if (there instanceof Outcome.Failed<ObjectNode> f) {
            return Outcome.fail(f.failure());
        }
        return Outcome.ok(
                dev.memoryd.daemon.notes.NoteImport.run(file, section, notes, actor, overCap, writer::submit));
    }

    /** A write to {@code branch} (null: the checked-out one); an unknown branch fails with not_found. */
    public Outcome<CompletableFuture<WriteOutcome>> write(WriteRequest req, String branch) throws IOException {
        for (dev.memoryd.grammar.Op op : req.ops()) {
            Optional<Failure> onPeer = peers.refuseWrite(opPath(op), "write");
            if (onPeer.isPresent()) {
                return Outcome.fail(onPeer.get());
            }
        }
        Outcome<WritePipeline> w = branches().writer(branch);
        if (w instanceof Outcome.Failed<WritePipeline> f) {
            return Outcome.fail(f.failure());
        }
        return Outcome.ok(((Outcome.Ok<WritePipeline>) w).value().submit(req));
    }

    /** The file an op targets, or null for one that names no path. */
    private static String opPath(dev.memoryd.grammar.Op op) {
        if (op instanceof dev.memoryd.grammar.ReplaceSection o) {
            return o.path().value();
        } else if (op instanceof dev.memoryd.grammar.AppendSection o) {
            return o.path().value();
        } else if (op instanceof dev.memoryd.grammar.AppendItem o) {
            return o.path().value();
        } else if (op instanceof dev.memoryd.grammar.CurateItems o) {
            return o.path().value();
        } else if (op instanceof dev.memoryd.grammar.TombstoneSection o) {
            return o.path().value();
        }
        return null;
    }

    /** The peers mounted read-only beside this root (none unless serving). */
    public dev.memoryd.daemon.peers.Peers peers() {
        return peers;
    }

    /** Branches: create, list, delete, merge, and their writers (serving daemons only). */
    public dev.memoryd.daemon.branch.Branches branches() {
        return servingOnly(branches);
    }

    /**
     * The commit to read for {@code branch} and {@code at}: {@code at} when given, else the head of
     * a branch that is not checked out, else null (the working tree). Unknown branch: not_found.
     */
    public Outcome<String> readPoint(String branch, String at) throws IOException {
        if (at != null || branch == null || branch.equals(cfg.branch())) {
            return Outcome.ok(at);
        }
        Optional<ObjectId> h = Optional.empty();
        try {
            new BranchName(branch);
            h = git.branchHead(branch);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
        }
        if (h.isEmpty()) {
            return Outcome.fail(ErrorReason.NOT_FOUND, "no branch '" + branch + "' (see branch.list)");
        }
        return Outcome.ok(h.get().name());
    }

    /**
     * Rotates the ledger key: the key file gains a new salt version and makes it current (written
     * durably first), then a {@code key_rotate} line, signed with the retiring key, records the
     * retirement point; every later line is signed with the new key.
     */
    public synchronized CompletableFuture<WriteOutcome> rotateKey(String actor) {
        servingOnly(writer);
        int retiring = KeyRing.loadExisting(cfg.keyFile()).current();
        KeyRing next = KeyRing.rotate(cfg.keyFile(), cfg.random());
        return writer.submit(WriteRequest.of(
                new KeyRotate(retiring, next.current(), next, cfg.keyFile(), hasher),
                "rotate the ledger key",
                actor == null ? "maintainer" : actor));
    }

    /** The ledger line of a key rotation; touches no file. {@code ring} is null when replayed. */
    private record KeyRotate(
            int retired,
            int current,
            KeyRing ring,
            java.nio.file.Path keyFile,
            java.util.concurrent.atomic.AtomicReference<ContentHasher> hasher)
            implements dev.memoryd.daemon.write.Mutation, WritePipeline.ChainHook {
        @Override
        public Result apply(dev.memoryd.grammar.FileSource files, Instant now) {
            com.fasterxml.jackson.databind.node.ObjectNode payload = JsonNodeFactory.instance.objectNode();
            payload.put("retired", retired);
            payload.put("current", current);
            return new Done(
                    Map.of(),
                    List.of(new EventSpec(
                            Verifier.KEY_ROTATE,
                            null,
                            null,
                            null,
                            null,
                            payload,
                            List.of(),
                            "rotated the ledger key " + retired + " -> " + current)),
                    true);
        }

        @Override
        public void afterAppend(Chain chain) {
            if (ring != null) {
                chain.useKeys(ring);
                hasher.set(ring.contentHasher());
            }
        }

        @Override
        public void afterUndo(Chain chain) {
            if (ring != null) {
                // The rotation line was cut off: the retiring key signs again, in the file as in the chain.
                KeyRing back = KeyRing.makeCurrent(keyFile, retired);
                chain.useKeys(back);
                hasher.set(back.contentHasher());
            }
        }
    }

    /** The SLIP relay (serving daemons only). */
    public dev.memoryd.daemon.slip.SlipRelay slip() {
        return servingOnly(slip);
    }

    /** Generic slices: create, append rows, list with staleness. Listing works read-only too. */
    /** The text of slice {@code id}: a peer's ({@code NAME:id}, at the commit the peer is read at) or the served root's. */
    public Optional<String> sliceText(String id) throws IOException {
        Optional<dev.memoryd.daemon.peers.Peers.PeerRef> onPeer = peers.resolve(id);
        if (onPeer.isEmpty()) {
            return slices().read(id);
        }
        return dev.memoryd.daemon.slices.SliceStore.readIn(
                onPeer.get().peer().snapshot().files(), onPeer.get().rest());
    }

    public dev.memoryd.daemon.slices.SliceStore slices() {
        return slices;
    }

    /** Routine slices compiled to markdown; works read-only too. */
    public dev.memoryd.daemon.slices.Routines routines() {
        return new dev.memoryd.daemon.slices.Routines(slices, cfg.root());
    }

    /** Full-text search over memory sections and slices (serving daemons only). */
    public dev.memoryd.daemon.search.SearchIndex search() {
        return servingOnly(search);
    }

    /**
     * {@code search} as of a commit ({@code at}: a commit id, or the head of a branch that is not
     * checked out): the commit's memory files and slices, indexed for this query alone. Read-only.
     */
    public Outcome<List<ObjectNode>> searchAt(String q, int limit, String branch, String at, String source)
            throws IOException, dev.memoryd.daemon.search.SearchIndex.BadQuery, InterruptedException {
        Optional<ObjectId> c = git.resolve(at);
        if (c.isEmpty()) {
            return Outcome.fail(ErrorReason.NOT_FOUND, "no commit '" + at + "'");
        }
        Map<String, String> files = new java.util.TreeMap<>();
        for (String p : git.listFiles(c.get())) {
            if (RootLayout.isContentFile(p)) {
                git.read(c.get(), p).ifPresent(b -> files.put(p, new String(b, StandardCharsets.UTF_8)));
            }
        }
        return Outcome.ok(dev.memoryd.daemon.search.SearchIndex.searchSnapshot(
                files,
                branch == null ? cfg.branch() : branch,
                cfg.halfLife(),
                q,
                limit,
                cfg.clock().instant(),
                source));
    }

    /**
     * {@code search} of the checked-out branch's working tree (as indexed) and of every mounted
     * peer at the commit it is read at: the best {@code limit} hits by score, each peer's hit
     * naming its {@code peer}.
     */
    public List<ObjectNode> search(String q, int limit, String source)
            throws IOException, dev.memoryd.daemon.search.SearchIndex.BadQuery, InterruptedException {
        Instant now = cfg.clock().instant();
        return dev.memoryd.daemon.peers.PeerSearch.merge(
                new ArrayList<>(servingOnly(search).search(q, limit, now, source)),
                peers,
                q,
                limit,
                cfg.halfLife(),
                now,
                source);
    }

    /** The substrate: declare, scope, traverse (serving daemons only). */
    public dev.memoryd.daemon.substrate.ChunkStore chunks() {
        return servingOnly(chunks);
    }

    /**
     * The SliceExport of SlicePolicy v1 for {@code anchor}: a turn of this root's conversations, or
     * {@code NAME:turn} of a mounted peer's, at the commit it is read at.
     *
     * @throws dev.memoryd.grammar.policy.PolicyInputException when the anchor is no stored turn
     */
    public ObjectNode context(String anchor, dev.memoryd.grammar.policy.PolicyConfig policy) throws IOException {
        Optional<ObjectNode> onPeer = dev.memoryd.daemon.peers.PeerConversations.context(peers, anchor, policy);
        return onPeer.isPresent() ? onPeer.get() : conversations().context(anchor, policy);
    }

    /** Stored conversations and context selection (serving daemons only). */
    public dev.memoryd.daemon.conversation.ConversationStore conversations() {
        return servingOnly(conversations);
    }

    /** The current content hasher; a read-only root loads the key file the first time a hash is asked for. */
    private ContentHasher contentHasher() {
        return hasher.updateAndGet(
                h -> h != null ? h : KeyRing.loadExisting(cfg.keyFile()).contentHasher());
    }

    /** Reads a memory file (or one section) from the working tree, or from a commit with {@code at}. */
    public Outcome<ObjectNode> read(String path, String section, String at) throws IOException {
        return read(path, section, at, true);
    }

    /**
     * As {@link #read(String, String, String)}; without {@code hashes} the result has no section
     * or content hashes, and the key file is not read (printing a file needs no key).
     */
    public Outcome<ObjectNode> read(String path, String section, String at, boolean hashes) throws IOException {
        Optional<dev.memoryd.daemon.peers.Peers.PeerRef> onPeer = peers.resolve(path);
        RepoPath p;
        try {
            p = RepoPath.of(
                    onPeer.map(dev.memoryd.daemon.peers.Peers.PeerRef::rest).orElse(path));
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "bad path: " + e.getMessage());
        }
        Optional<String> text;
        ObjectId commit = git.head();
        if (onPeer.isPresent()) {
            if (at != null) {
                return Outcome.fail(new Failure(
                        ErrorReason.INVALID_REQUEST,
                        "'" + path + "' is in peer '"
                                + onPeer.get().peer().name()
                                + "', which is read at its mounted commit: branch and at apply to the"
                                + " served root only",
                        Map.of("field", "at", "peer", onPeer.get().peer().name())));
            }
            dev.memoryd.daemon.peers.PeerSnapshot snap = onPeer.get().peer().snapshot();
            commit = ObjectId.fromString(snap.commit());
            text = Optional.ofNullable(snap.files().get(p.value()));
        } else if (at != null) {
            Optional<ObjectId> c = git.resolve(at);
            if (c.isEmpty()) {
                return Outcome.fail(ErrorReason.NOT_FOUND, "no commit '" + at + "'");
            }
            commit = c.get();
            text = git.read(commit, p.value()).map(b -> new String(b, StandardCharsets.UTF_8));
        } else {
            try {
                text = tree.read(p);
            } catch (SecurityException e) {
                return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
            }
        }
        if (text.isEmpty()) {
            return Outcome.fail(
                    ErrorReason.NOT_FOUND,
                    "no file " + p.value() + (at != null ? " at " + at : "")
                            + onPeer.map(x -> " in peer '" + x.peer().name() + "'")
                                    .orElse(""));
        }
        MemoryDocument doc = MemoryDocument.parse(text.get());
        ObjectNode r = JsonNodeFactory.instance.objectNode();
        r.put("path", p.value());
        onPeer.ifPresent(x -> r.put("peer", x.peer().name()));
        r.put("commit", commit == null ? null : commit.name());
        ArrayNode secs = r.putArray("sections");
        MemoryDocument.Section target = null;
        for (MemoryDocument.Section s : doc.sections()) {
            if (s.level() != 2) {
                continue;
            }
            ObjectNode o = secs.addObject();
            o.put("name", s.heading());
            o.put("anchor", s.anchor());
            if (hashes) {
                o.put("hash", contentHasher().hash(doc.canonicalBody(s)));
            }
            if (section != null && (section.equals(s.heading()) || section.equals(s.anchor()))) {
                target = s;
            }
        }
        if (section != null) {
            if (target == null) {
                return Outcome.fail(new Failure(
                        ErrorReason.UNKNOWN_SECTION,
                        "no section '" + section + "' in " + p.value(),
                        Map.of(
                                "sections",
                                doc.sections().stream()
                                        .filter(s -> s.level() == 2)
                                        .map(MemoryDocument.Section::heading)
                                        .toList())));
            }
            r.put("section", target.heading());
            r.put("content", doc.canonicalBody(target));
            if (hashes) {
                r.put("hash", contentHasher().hash(doc.canonicalBody(target)));
            }
        } else {
            r.put("content", text.get());
            if (hashes) {
                r.put("hash", contentHasher().hash(text.get()));
            }
        }
        return Outcome.ok(r);
    }

    /** The memory files of the checked-out branch's head commit, in path order, with that commit. */
    public dev.memoryd.daemon.git.TreeChanges.Listing memoryFiles() throws IOException {
        ObjectId h = git.head();
        return new dev.memoryd.daemon.git.TreeChanges.Listing(
                h == null ? null : h.name(),
                dev.memoryd.daemon.git.TreeChanges.files(git.repository(), h, RootLayout::isMemoryFile));
    }

    /**
     * The memory files added, modified or removed from commit {@code since} to the checked-out
     * branch's head; not_found when {@code since} names no commit.
     */
    public Outcome<dev.memoryd.daemon.git.TreeChanges.Delta> memoryFileChanges(String since) throws IOException {
        Optional<ObjectId> from = ObjectId.isId(since) ? git.resolve(since) : Optional.empty();
        if (from.isEmpty()) {
            return Outcome.fail(
                    ErrorReason.NOT_FOUND, "no commit '" + since + "' (give a full commit id, as ping's head)");
        }
        ObjectId h = git.head();
        return Outcome.ok(new dev.memoryd.daemon.git.TreeChanges.Delta(
                from.get().name(),
                h == null ? null : h.name(),
                dev.memoryd.daemon.git.TreeChanges.between(git.repository(), from.get(), h, RootLayout::isMemoryFile)));
    }

    /**
     * Typed links from a slice id, over every memory file and {@code .slices/*.slice} in the working
     * tree (frontmatter only: a pointer's payload is never opened), with inverse, transitive and
     * symmetric inference when asked.
     */
    public Outcome<List<dev.memoryd.grammar.slices.LinkGraph.ExploredLink>> explore(
            String id, String rel, boolean infer) throws IOException {
        if (rel != null && !dev.memoryd.grammar.slices.Relations.isKnown(rel)) {
            return Outcome.fail(
                    ErrorReason.INVALID_REQUEST,
                    "unknown relation '" + rel + "'; known: "
                            + new java.util.TreeSet<>(dev.memoryd.grammar.slices.Relations.names()));
        }
        Optional<dev.memoryd.daemon.peers.Peers.PeerRef> onPeer = peers.resolve(id);
        String local = onPeer.map(dev.memoryd.daemon.peers.Peers.PeerRef::rest).orElse(id);
        List<String> texts = new ArrayList<>();
        if (onPeer.isPresent()) {
            texts.addAll(onPeer.get().peer().snapshot().files().values());
        } else {
            for (Path f : sliceFiles()) {
                texts.add(Files.readString(f, StandardCharsets.UTF_8));
            }
        }
        List<com.fasterxml.jackson.databind.JsonNode> slices = new ArrayList<>();
        boolean found = false;
        for (String text : texts) {
            java.util.Optional<com.fasterxml.jackson.databind.JsonNode> s =
                    dev.memoryd.grammar.slices.SliceFile.parse(text).slice();
            if (s.isPresent()) {
                slices.add(s.get());
                found |= local.equals(s.get().path("id").asText(null));
            }
        }
        dev.memoryd.grammar.slices.LinkGraph g = dev.memoryd.grammar.slices.LinkGraph.of(slices);
        List<dev.memoryd.grammar.slices.LinkGraph.ExploredLink> links =
                g.explore(local, java.util.Optional.ofNullable(rel), infer);
        if (!found && links.isEmpty()) {
            return Outcome.fail(
                    ErrorReason.NOT_FOUND,
                    "no slice with id " + local
                            + onPeer.map(x -> " in peer '" + x.peer().name() + "'")
                                    .orElse(""));
        }
        return Outcome.ok(links);
    }

    private List<Path> sliceFiles() throws IOException {
        List<Path> out = new ArrayList<>();
        for (String p : RootLayout.contentFilesOnDisk(cfg.root())) {
            out.add(cfg.root().resolve(p));
        }
        return out;
    }

    /** Lints one file, or every memory file under {@code users/}. */
    public Outcome<List<LintProblem>> lint(String path) throws IOException {
        List<LintProblem> out = new ArrayList<>();
        List<RepoPath> paths = new ArrayList<>();
        if (path != null) {
            try {
                paths.add(RepoPath.of(path));
            } catch (IllegalArgumentException e) {
                return Outcome.fail(ErrorReason.INVALID_REQUEST, "bad path: " + e.getMessage());
            }
        } else {
            for (String p : RootLayout.memoryFilesOnDisk(cfg.root())) {
                paths.add(RepoPath.of(p));
            }
        }
        Grammar g = grammar();
        for (RepoPath p : paths) {
            Optional<String> text;
            try {
                text = tree.read(p);
            } catch (SecurityException e) {
                return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
            }
            if (text.isEmpty()) {
                return Outcome.fail(ErrorReason.NOT_FOUND, "no file " + p.value());
            }
            out.addAll(linter.lint(g, p, text.get()));
        }
        return Outcome.ok(out);
    }

    /** Events that touched a file (and section), newest first. Scans the chain. */
    public Outcome<List<Event>> history(String path, String section, int limit) throws IOException {
        return history(path, section, limit, null);
    }

    /** As {@link #history(String, String, int)}, on {@code branch}'s chain (null: the checked-out branch). */
    public Outcome<List<Event>> history(String path, String section, int limit, String branch) throws IOException {
        List<Event> all = new ArrayList<>();
        Iterator<Event> it;
        if (branch == null || branch.equals(cfg.branch())) {
            it = readChain();
        } else {
            Outcome<String> at = readPoint(branch, null);
            if (at instanceof Outcome.Failed<String> f) {
                return Outcome.fail(f.failure());
            }
            BranchName b = new BranchName(branch).onReplica(git.replica());
            it = ledger != null && ledger.branches().contains(b)
                    ? ledger.chain(b).read(1)
                    : Ledger.readOnly(cfg.ledgerDir(), b); // a branch with no chain reads as empty
        }
        while (it.hasNext()) {
            Event e = it.next();
            if (path.equals(e.filePath())
                    && (section == null || section.equals(e.sectionAnchor()) || section.equals(sectionName(e)))) {
                all.add(e);
            }
        }
        List<Event> out = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0 && out.size() < limit; i--) {
            out.add(all.get(i));
        }
        return Outcome.ok(out);
    }

    private static String sectionName(Event e) {
        return e.payload() == null
                ? null
                : e.payload().path("op").path("section").asText(null);
    }

    /** The commit of the checked-out branch that carries event {@code eventId} (its {@code Memoryd-Event} trailer). */
    public Optional<String> commitOf(String eventId) throws IOException {
        return eventCommits.commitOf(eventId);
    }

    /** The event an {@code ev:} token names. */
    public Outcome<Event> resolve(String token) throws IOException {
        EvidenceToken t;
        try {
            t = new EvidenceToken(token);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "not an evidence token: " + e.getMessage());
        }
        Iterator<Event> it = readChain();
        String want = t.eventId().value();
        while (it.hasNext()) {
            Event e = it.next();
            if (e.eventId().equals(want)) {
                if (!EvidenceToken.of(Instant.parse(e.ts()), t.eventId()).equals(t)) {
                    return Outcome.fail(
                            ErrorReason.NOT_FOUND,
                            "event " + want + " exists but its time is " + e.ts() + ", not the token's");
                }
                return Outcome.ok(e);
            }
        }
        // Not this root's chain: another branch's or another replica's (brought by sync).
        Optional<Event> elsewhere = Verifier.find(cfg.ledgerDir(), t.eventId());
        if (elsewhere.isPresent()) {
            Event e = elsewhere.get();
            if (!EvidenceToken.of(Instant.parse(e.ts()), t.eventId()).equals(t)) {
                return Outcome.fail(
                        ErrorReason.NOT_FOUND,
                        "event " + want + " exists but its time is " + e.ts() + ", not the token's");
            }
            return Outcome.ok(e);
        }
        return Outcome.fail(ErrorReason.NOT_FOUND, "no event " + want + " in the ledger");
    }

    private Iterator<Event> readChain() throws IOException {
        if (ledger != null) {
            return ledger.chain(new BranchName(cfg.branch()).onReplica(git.replica()))
                    .read(1);
        }
        return Ledger.readOnly(cfg.ledgerDir(), new BranchName(cfg.branch()).onReplica(git.replica()));
    }

    /**
     * Verifies every chain, checking the branch head's recorded ledger head for truncation, and
     * every link between chains (a chain the ledger directory lacks is read from Git history).
     */
    public VerifyResult verify() throws IOException {
        return verify(n -> {});
    }

    /** As {@link #verify()}, reporting lines verified so far to {@code progress} (for a terminal). */
    public VerifyResult verify(java.util.function.LongConsumer progress) throws IOException {
        Map<BranchName, dev.memoryd.ledger.Head> expected = new java.util.HashMap<>();
        // Every other branch with a chain: its head commit records how far its chain must reach.
        String replica = git.replica();
        for (Map.Entry<String, ObjectId> e : git.branches().entrySet()) {
            BranchName cn;
            try {
                cn = new BranchName(e.getKey()).onReplica(replica);
            } catch (IllegalArgumentException notOurs) {
                continue; // a name memoryd would not give a branch: it has no chain of ours
            }
            if (!e.getKey().equals(cfg.branch())
                    && Files.isDirectory(cfg.ledgerDir().resolve(cn.value()).resolve("0000"))) {
                LedgerTrailers.publishedHeadAt(git, e.getValue(), cn).ifPresent(h -> expected.put(cn, h));
            }
        }
        BranchName own = new BranchName(cfg.branch()).onReplica(replica);
        LedgerTrailers.publishedHeadAt(git, git.head(), own).ifPresent(h -> expected.put(own, h));
        // The key file, not the ring loaded at start: a rotation may have added a version since.
        // Linked chains the working tree lacks (a merged branch's, in a clone) are read from the commits that link
        // them.
        return Verifier.verify(
                cfg.ledgerDir(),
                KeyRing.loadExisting(cfg.keyFile()),
                expected,
                progress,
                new dev.memoryd.daemon.git.CommittedLedger(git));
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
        if (branches != null) {
            branches.close();
        }
        if (writer != null) {
            writer.close();
        }
        if (chunks != null) {
            chunks.close();
        }
        if (search != null) {
            try {
                search.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        if (ledger != null) {
            ledger.close();
        }
        try {
            peers.close();
        } catch (IOException e) {
            LOG.warning("closing the peers: " + e.getMessage());
        }
        git.close();
    }

    /** {@code part}, which a read-only opening leaves null: what only a serving daemon has. */
    private static <T> T servingOnly(T part) {
        if (part == null) {
            throw new IllegalStateException("opened read-only");
        }
        return part;
    }
}
