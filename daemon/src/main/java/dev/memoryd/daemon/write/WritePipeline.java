package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.WorkTreeIndex;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.IdGenerator;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The single writer of one branch. Declarations queue up; the writer takes every declaration
 * waiting (up to {@code maxBatch}, and fewer when they leave much text: {@link Admission}) and
 * validates each against the state left by the ones before it. The accepted ones then share one
 * ledger fsync, one object flush and one ref update, while each still becomes its own commit and
 * its own run of ledger lines (group commit). A future completes only after its declaration is
 * durable in the ledger and published on the branch.
 *
 * <p>Ordering: declarations are applied in submission order. Durability: the ledger is the
 * write-ahead log: it is fsynced before files or refs change, and {@link #recover()} rolls a
 * ledger tail that never reached the branch forward into files and commits.
 *
 * <p>This class keeps the queue, the writer thread's loop, submission and close; a batch's
 * admission is {@link Admission}, its publishing {@link Publisher}, humans' edits {@link
 * HumanIntake}, the start {@link Recovery}, and what they share {@link WriterState}. Thread-safety:
 * {@link #submit}, {@link #capture}, {@link #exclusive}, {@link #health} and {@link #close} may be
 * called from any thread; the setters before {@link #start}; everything said to run "on the
 * writer thread" only from a task given to {@link #exclusive}.
 *
 * <p>Longer than a room by its nested interfaces ({@link FileStore}, {@link IoAction}, {@link
 * MergeParent} and the mutations' hooks): they are the contract between the writer and what it
 * writes to, declared where the writer is; the class's own code is the queue and the loop.
 */
public final class WritePipeline implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());
    private static final long INDEX_DELAY_MS = 50;
    /** How long a put-back that could not be committed waits before the next try. */
    private static final long PUT_BACK_RETRY_MS = 500;

    private final WriterState s;
    private final HumanIntake intake;
    private final Publisher publisher;
    private final Admission admission;
    private final MergedSegments mergedSegments;
    private final PutBackCommit putBack;
    /** When {@link #putBackIdle} may try next ({@link System#nanoTime}). */
    private long putBackAt = System.nanoTime();

    private final LedgerReplay replay;
    private final int maxBatch;
    private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean accepting = true;
    private volatile Throwable broken;

    /** Where the writer reads current file text and writes new text (the working tree). */
    public interface FileStore {
        Optional<String> read(RepoPath p) throws IOException;

        /**
         * Whether {@link #read} would give {@code text} (empty: no file), without the copy of the
         * file a read makes where the store can compare as it reads; false where read would throw
         * {@link dev.memoryd.daemon.layout.NotMemoryText}.
         */
        default boolean holds(RepoPath p, Optional<String> text) throws IOException {
            try {
                return read(p).equals(text);
            } catch (dev.memoryd.daemon.layout.NotMemoryText e) {
                return false;
            }
        }

        void writeAll(Map<String, byte[]> files) throws IOException;

        /** Writes and fsyncs temp files; the returned action renames them into place. */
        IoAction stage(Map<String, byte[]> files) throws IOException;

        /**
         * As {@link #stage}, but a file whose content on disk is no longer {@code expected} (by path;
         * empty: absent) when its turn to be renamed comes is left alone: a human saved it meanwhile,
         * and their save wins (it is captured next). {@code skipped} receives such paths.
         */
        default IoAction stage(
                Map<String, byte[]> files,
                Map<String, Optional<String>> expected,
                java.util.function.Consumer<String> skipped)
                throws IOException {
            return stage(files);
        }

        java.nio.file.Path root();

        /**
         * Deletes each file that holds exactly the given bytes (by path), and makes the deletions
         * durable; a file holding anything else, or already gone, is left alone. Returns the paths
         * deleted. A store that is not the working tree has nothing to delete.
         */
        default java.util.Set<String> removeIfHolding(Map<String, byte[]> files) throws IOException {
            return java.util.Set.of();
        }

        /**
         * Whether this store is the repository's working tree (the checked-out branch). A store that
         * is not (a branch written in Git only) makes the writer leave the index alone.
         */
        default boolean workTree() {
            return true;
        }
    }

    /** An I/O step that may fail. */
    public interface IoAction {
        void run() throws IOException;

        /** Gives up what {@link #run} would have done (e.g. removes staged temp files). */
        default void abort() throws IOException {}

        /** Makes what {@link #run} did durable where run left that for later (directory fsyncs). */
        default void settle() throws IOException {}

        /**
         * The modification time each file {@link #run} puts in place will have there, by repository
         * path; empty when unknown ahead.
         */
        default Map<String, java.nio.file.attribute.FileTime> modified() {
            return Map.of();
        }
    }

    /** A mutation whose commit merges another commit in (a proposal's, when it is accepted). */
    public interface MergeParent {
        ObjectId mergeParent();
    }

    /** Event op of a declaration that became a proposal instead of changing the branch. */
    public static final String OP_PROPOSAL = "proposal_created";

    /** A mutation that must act on the chain right after its own lines are appended. */
    public interface ChainHook {
        void afterAppend(Chain chain);

        /** The batch that appended this mutation's lines was undone: put back what {@link #afterAppend} changed; idempotent. */
        void afterUndo(Chain chain);
    }

    /**
     * Runs {@code r} (null: nothing) in every batch between its reading of the files and git's
     * index lock, on the writer thread. For tests that act as a git command in that window.
     */
    public void beforeIndexLock(Runnable r) {
        s.beforeIndexLock = r;
    }

    /**
     * Runs {@code r} (null: nothing) in every batch between its reading of the files and its look
     * at the index before git's index lock, on the writer thread. For tests that act as a git
     * command in that window.
     */
    public void beforeIndexLook(Runnable r) {
        s.beforeIndexLook = r;
    }

    /** Tells the writer which files wait in the drift queue (set before {@link #start()}). */
    public void setDriftView(DriftView v) {
        s.drift = v;
    }

    /** Registers how to redo events whose op is {@code op} (extensions; grammar ops are built in). */
    public void registerReplayer(String op, Replayer r) {
        s.replayers.register(op, r);
    }

    /**
     * Called on the writer thread with every batch's events, in ledger order, once they are
     * published; also with the events a recovery rolled forward. Must be quick and not write.
     */
    public void addListener(java.util.function.Consumer<List<Event>> l) {
        s.listeners.add(l);
    }

    public WritePipeline(
            GrammarFiles grammars,
            FileStore files,
            GitStore git,
            Chain chain,
            SectionHasher hasher,
            IdGenerator ids,
            Clock clock,
            BranchName branch,
            int maxBatch) {
        this.s = new WriterState(grammars, files, git, chain, hasher, ids, clock, branch);
        this.intake = new HumanIntake(s);
        this.publisher = new Publisher(s);
        this.admission = new Admission(s, intake, publisher);
        this.mergedSegments = new MergedSegments(s);
        this.putBack = new PutBackCommit(s);
        this.maxBatch = maxBatch;
        this.thread = new Thread(this::loop, "memoryd-writer-" + branch.value());
        this.thread.setDaemon(true);
        for (String op : List.of(HumanCapture.OP_EDIT, HumanCapture.OP_DRIFT, HumanCapture.OP_RESOLVED)) {
            s.replayers.register(op, HumanCapture::replay);
        }
        // A proposal changes no file of this branch; its acceptance is recorded as grammar events.
        s.replayers.register(OP_PROPOSAL, evs -> (src, now) -> new Mutation.Done(Map.of(), List.of(), true));
        this.replay = new LedgerReplay(chain, s.replayers);
    }

    /**
     * Forces each batch's ledger lines to {@code j} before the index lock is taken, and the segment
     * only after the lock is let go (before any reply): git commands are kept out for no ledger
     * fsync. Call before {@link #start}; the caller has applied what {@code j} held.
     */
    public void useJournal(dev.memoryd.ledger.Journal j) {
        s.journal = j;
    }

    /** A mutation applying grammar ops as an agent's write would (for proposals being accepted). */
    public Mutation grammarOps(List<Op> ops) {
        return new GrammarMutation(s.grammars, s.withSliceIds(ops), s.hasher);
    }

    /** Where this writer's grammar comes from. */
    public GrammarFiles grammars() {
        return s.grammars;
    }

    /** The branch this writer writes. */
    public BranchName branch() {
        return s.branch;
    }

    /** The chain this writer appends to: the branch's, or this replica's chain of it. */
    public BranchName chainName() {
        return s.chain.branch();
    }

    /** The branch's Git store (commits and reads; its writes belong to the writer thread). */
    public GitStore git() {
        return s.git;
    }

    /** The content hasher of section hashes. */
    public SectionHasher hasher() {
        return s.hasher;
    }

    public PhaseStats stats() {
        return s.stats;
    }

    /** The writer's state and its last failure (for {@code ping}). */
    public WriterHealth.Snapshot health() {
        WriterHealth.Snapshot h = s.health.snapshot();
        Throwable b = broken;
        return b == null ? h : h.stopped(WriterHealth.describe(b));
    }

    /**
     * The git command that waits half-way in the working tree ({@code merge}, {@code cherry-pick},
     * {@code revert}, {@code rebase}, {@code am}) while writes are refused for it; empty when none
     * does or this writer's branch is in Git alone. Any thread.
     */
    public Optional<String> gitInProgress() {
        return s.files.workTree()
                ? GitInProgress.of(s.git.repository()).map(GitInProgress::operation)
                : Optional.empty();
    }

    /**
     * The form of git's index that memoryd cannot read ({@code split}, {@code sparse}) while writes
     * are refused for it, as the last batch found it; empty when it can. Any thread.
     */
    public Optional<String> indexFormat() {
        return s.indexForm.now().map(dev.memoryd.daemon.git.IndexFormat::kind);
    }

    /**
     * The setting by which git would convert memory files' line ends while writes are refused for
     * it ({@code core.autocrlf true}, or an attribute in {@code .gitattributes}), as the last batch
     * found it; empty when git keeps them byte for byte. Any thread.
     */
    public Optional<String> lineEnds() {
        return s.lineEnds.now().map(dev.memoryd.daemon.git.LineEndConversion::cause);
    }

    /**
     * The last memory file written back over an older version a git command put in the working
     * tree without a commit, with how many since the start; empty when none. Any thread.
     */
    public Optional<PutBack> lastPutBack() {
        return Optional.ofNullable(s.lastPutBack.get());
    }

    /** How long a read waits for declarations answered at ledger durability to be published. */
    private static final long PUBLISHED_WAIT_MS = 10_000;

    /**
     * Waits until every declaration answered so far at {@link Durability#LEDGER} is published (its
     * files in place, its commit on the branch), so a read sees every write acknowledged before it:
     * empty then; else the refusal for the read (a fault keeps them from being published). Returns at
     * once when none waits. Any thread.
     */
    public Optional<Failure> awaitPublished() throws InterruptedException {
        boolean done = !publisher.owes() && s.awaitPublished(PUBLISHED_WAIT_MS);
        if (done && !publisher.owes()) {
            return Optional.empty();
        }
        WriterHealth.Snapshot h = health();
        return Optional.of(new Failure(
                ErrorReason.UNAVAILABLE,
                "writes acknowledged once their ledger lines were durable are not published yet ("
                        + (h.lastError() == null ? "still being published" : h.lastError())
                        + "); a read now would not show them: retry shortly",
                java.util.Map.of("writer", h.state())));
    }

    /** Loads idempotency keys from the chain; rolls an unpublished ledger tail forward. */
    public void recover() throws IOException {
        new Recovery(s, replay).run();
    }

    /**
     * Commits files under {@code ledger/} that other replicas' chains hold (brought by a sync), with
     * no event of this branch's chain, as a merge of {@code mergeParent} when it is not null; writes
     * them to the working tree first. Call on the writer thread ({@link #exclusive}). Returns empty,
     * changing nothing, when commits made with git since memoryd's last one are still to be
     * captured (capture first, then call again).
     */
    public Optional<ObjectId> commitForeign(Map<String, byte[]> ledgerFiles, String message, ObjectId mergeParent)
            throws IOException {
        return new ForeignCommit(s).commit(ledgerFiles, message, mergeParent);
    }

    public void start() {
        thread.start();
    }

    /**
     * Whether {@code ref} is the commit memoryd itself put at the branch's tip last: a move of the
     * branch the watcher need not wake a capture for. Any thread.
     */
    public boolean isOwnTip(ObjectId ref) {
        return ref != null && ref.equals(s.ownTip);
    }

    /**
     * Queues a capture of humans' edits: the given memory files on disk against their recorded
     * texts, plus any commit a human put on the branch. Unchanged files record nothing; the future
     * completes with {@link WriteOutcome.Unchanged} when there was nothing to capture.
     */
    public CompletableFuture<WriteOutcome> capture(java.util.Collection<RepoPath> paths) {
        return submit(intake.captureRequest(paths, false));
    }

    /**
     * Queues a capture of every memory file: those on disk and those the branch head records (so
     * a deletion is seen too).
     */
    public CompletableFuture<WriteOutcome> captureAll() throws IOException {
        return capture(intake.memoryFiles());
    }

    /**
     * As {@link #capture}, for the watcher: a file the human staged is left for their commit
     * ({@link StagedEdits}), so that a capture does not move the branch under a {@code git commit}.
     */
    public CompletableFuture<WriteOutcome> captureSaves(java.util.Collection<RepoPath> paths) {
        return submit(intake.captureRequest(paths, true));
    }

    /**
     * As {@link #captureSaves}, for files the watcher saw change: when every one holds its recorded
     * text and no commit made with git waits, the writer answers {@link WriteOutcome.Unchanged}
     * without taking the branch's lock ({@link SeenChanging#nothingToCapture}).
     */
    public CompletableFuture<WriteOutcome> captureSeen(java.util.Collection<RepoPath> paths) {
        return submit(intake.seenChanging(paths));
    }

    /** As {@link #captureAll}, for the watcher's rescans: staged files are left for their commit. */
    public CompletableFuture<WriteOutcome> captureAllSaves() throws IOException {
        return captureSaves(intake.memoryFiles());
    }

    /** Queues a declaration; the future completes once it is durable and published, or refused. */
    public CompletableFuture<WriteOutcome> submit(WriteRequest req) {
        CompletableFuture<WriteOutcome> f = new CompletableFuture<>();
        Throwable b = broken;
        if (b != null || !running || !accepting) {
            f.completeExceptionally(new IllegalStateException("the writer has stopped", b));
            return f;
        }
        queue.add(new Pending(req, f));
        return f;
    }

    private void loop() {
        List<Pending> batch = new ArrayList<>();
        while (running) {
            try {
                // Before every batch, not only when writes pause: a stream of writes must not leave git's
                // conflict markers in a ledger segment for a human's next `git add -A` to commit.
                if (s.indexBacklog.isEmpty() && s.index != null && s.indexForm.readable()) {
                    WorkTreeIndex.Stale stale = s.index.staleAmong(s::latelyAtHead);
                    s.indexBacklog.putAll(stale.entries());
                    s.indexBacklog.putAll(mergedSegments.putBack(stale.conflicted()));
                }
                boolean putBackWaits = !s.putBackNext.isEmpty() && s.files.workTree(); // else the next batch carries it
                if (putBackWaits
                        && queue.isEmpty()
                        && !publisher.owes() // its commit would carry ledger lines whose files are not published
                        && System.nanoTime() - putBackAt >= 0) {
                    putBackIdle();
                }
                boolean owes = publisher.owes();
                Pending first = s.indexBacklog.isEmpty() && !putBackWaits && !owes
                        ? queue.take()
                        : queue.poll(INDEX_DELAY_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
                if (first == null && owes) {
                    publisher.retryOwed(); // acknowledged writes are published once the fault is gone, writes or not
                    continue;
                }
                if (first == null) {
                    if (!s.indexBacklog.isEmpty() && s.indexForm.readable()) {
                        long t0 = System.nanoTime();
                        if (s.git.updateIndex(s.files.root(), s.indexBacklog)) {
                            s.indexBacklog.clear();
                        }
                        s.stats.add(PhaseStats.Phase.INDEX, System.nanoTime() - t0);
                    }
                    continue;
                }
                if (first == Pending.STOP) {
                    break;
                }
                if (first.task() != null) {
                    publisher.awaitSegmentForce(); // a task sees the ledger at rest
                    Optional<Failure> owed = publisher.owes() ? publisher.settle() : Optional.empty();
                    if (owed.isPresent()) {
                        // A task (a sync's commit, a check) must not see acknowledged lines whose files are not
                        // published.
                        first.taskDone()
                                .completeExceptionally(
                                        new IllegalStateException(owed.get().message()));
                        continue;
                    }
                    first.task().run();
                    continue;
                }
                batch.add(first);
                drainWrites(batch);
                boolean stop = batch.remove(Pending.STOP);
                for (List<Pending> rest = admission.process(batch); !rest.isEmpty(); ) {
                    batch.clear(); // what is left is answered by the handlers below if its batch fails
                    batch.addAll(rest);
                    rest = admission.process(batch);
                }
                if (stop) {
                    running = false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (IOException | RuntimeException e) {
                // Whatever of the batch was begun has been undone (publish rolls back before it throws),
                // so the writer stays up: the next batch is the retry, and heals once the cause is gone.
                s.health.failed(e);
                WriteOutcome refused = new WriteOutcome.Rejected(
                        -1,
                        new Failure(
                                ErrorReason.UNAVAILABLE,
                                "the write could not be made (" + WriterHealth.describe(e)
                                        + "); nothing was recorded: retry once the" + " cause is gone",
                                Failure.ordered("cause", WriterHealth.describe(e), "recorded", false)));
                for (Pending p : batch) {
                    p.future().complete(refused);
                }
            } catch (UnsettledBatch e) {
                s.health.unsettled(e.getCause());
                WriteOutcome unknown = new WriteOutcome.Rejected(
                        -1,
                        new Failure(
                                ErrorReason.UNAVAILABLE,
                                "the write failed (" + WriterHealth.describe(e.getCause())
                                        + ") and could not be undone (" + e.getMessage()
                                        + "); it may still be recorded: read before you retry (a restart settles it)",
                                Failure.ordered("cause", WriterHealth.describe(e.getCause()), "recorded", "unknown")));
                for (Pending p : batch) {
                    p.future().complete(unknown);
                }
            } catch (Error e) {
                // The state on disk may be half-applied; stop taking writes. A restart rolls forward.
                LOG.log(Level.SEVERE, "writer failed; refusing further writes until restart", e);
                broken = e;
                running = false;
                for (Pending p : batch) {
                    p.future().completeExceptionally(e);
                }
            } finally {
                batch.clear();
            }
        }
        running = false;
        Throwable cause = broken != null ? broken : new IllegalStateException("memoryd is shutting down");
        for (Pending p; (p = queue.poll()) != null; ) {
            if (p.taskDone() != null) {
                p.taskDone().completeExceptionally(cause);
            } else if (p != Pending.STOP) {
                p.future().completeExceptionally(cause);
            }
        }
    }

    /** Takes waiting declarations up to the batch size, stopping at a task (it runs between batches). */
    private void drainWrites(List<Pending> batch) {
        while (batch.size() < maxBatch) {
            Pending p = queue.peek();
            if (p == null || p.task() != null) {
                return;
            }
            batch.add(queue.poll());
        }
    }

    private final java.util.concurrent.atomic.AtomicBoolean indexLook = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Says a git command may have written the index: an idle writer wakes to look at it (a stat
     * when memoryd wrote it last), so an index written back from before memoryd's last batch gets
     * memoryd's entries again before a human commits it. At most one look is queued at a time.
     * Files left out while the index held them in conflict are captured again, and the staged
     * files waiting for their commit looked at again ({@link StagedEdits}).
     */
    public void indexMayHaveChanged() {
        if (indexLook.compareAndSet(false, true)) {
            exclusive(() -> {
                indexLook.set(false);
                if (s.index != null) {
                    // a stash pop or apply --3way that stopped on a memory file: named at once (ping, status)
                    s.index.conflictedNow().stream()
                            .filter(RootLayout::isMemoryFile)
                            .map(RepoPath::of)
                            .forEach(s.unmerged::add);
                }
                intake.staged().lookAgain(); // last: a failure here leaves only ping's list of staged files stale
                return null;
            });
        }
        if (!s.unmerged.isEmpty()) {
            // A human's git add (or checkout) of a file left in conflict changes only the index:
            // the file's text is captured now, not at the next rescan.
            capture(List.copyOf(s.unmerged));
        }
    }

    /** The staged memory files waiting for the human's commit, with when each was first seen staged. */
    public List<StagedFile> stagedWaiting() {
        return intake.staged().waitingNow();
    }

    /** The paths git's index holds in conflict now (none without a working tree). Reads the index. */
    public List<String> conflictedInIndex() throws IOException {
        return s.index == null ? List.of() : s.index.conflicted();
    }

    /** The memory files git's index holds in conflict, left alone until it holds them merged ({@link UnmergedFile}). */
    public List<String> unmerged() {
        return s.unmerged.stream().map(RepoPath::value).sorted().toList();
    }

    /**
     * Runs {@code work} on the writer thread between batches: it sees the files, the ledger and the
     * branch at rest, with no write half done. For checks that compare them (replay --verify).
     */
    public <T> CompletableFuture<T> exclusive(java.util.concurrent.Callable<T> work) {
        CompletableFuture<T> f = new CompletableFuture<>();
        if (broken != null || !running || !accepting) {
            f.completeExceptionally(new IllegalStateException("the writer has stopped", broken));
            return f;
        }
        queue.add(new Pending(
                null,
                null,
                () -> {
                    try {
                        f.complete(work.call());
                    } catch (Exception | Error e) {
                        f.completeExceptionally(e);
                    }
                },
                f));
        return f;
    }

    /** What {@code replay --onto-latest} did to one file. {@code outcome}: up_to_date, applied or halted. */
    public record OntoFile(String path, String outcome, int applied, String reanchored, String halt) {}

    /**
     * {@code replay --onto-latest}: every memory file whose text on disk is not its recorded text
     * is taken as a snapshot (say, restored from a backup) and brought up to date with the newer
     * ledger events (see {@link OntoLatest}). Updated files are written to the working tree, then
     * captured (what the snapshot held beyond the ledger becomes a human's edit); a file that
     * halts is flagged as drift with the snapshot's text. Call on the writer thread ({@link #exclusive}).
     */
    public List<OntoFile> ontoLatest(java.util.function.IntFunction<SectionHasher> hasherFor) throws IOException {
        return new OntoLatestRun(s, this::submit, this::capture).run(hasherFor);
    }

    /** How replay finds other branches' chains (a chain that starts with a fork replays its parent first). */
    public void setChains(java.util.function.Function<BranchName, Optional<Chain>> lookup) {
        replay.setChains(lookup);
    }

    /**
     * Rebuilds every file the ledger writes from the ledger alone ({@link LedgerReplay#fromEmpty}).
     * Call on the writer thread (see {@link #exclusive}).
     */
    public LedgerReplay.ReplayState replayFromEmpty(java.util.function.LongConsumer progress) throws IOException {
        return replay.fromEmpty(progress);
    }

    /**
     * Commits what waits to be put back ({@link PutBackCommit}) while no write is queued; a try
     * that cannot go on now (a lock, a file changed since) is made again a while later, and the
     * next batch carries it meanwhile.
     */
    private void putBackIdle() {
        publisher.awaitSegmentForce(); // the ledger at rest, as for a task
        PutBackCommit.Result r;
        try {
            r = putBack.commit();
        } catch (IOException e) {
            // Nothing moved (the ref is published last); the next batch carries the files anyway.
            LOG.log(
                    Level.WARNING,
                    "could not commit memoryd's put-back files while writes pause; the next write carries them",
                    e);
            r = PutBackCommit.Result.LATER;
        }
        putBackAt = System.nanoTime()
                + (r == PutBackCommit.Result.LATER
                        ? java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(PUT_BACK_RETRY_MS)
                        : 0);
    }

    /** Stops taking writes, finishes the batch in hand and flushes the index. */
    @Override
    public void close() {
        accepting = false;
        queue.add(Pending.STOP);
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        publisher.close();
        if (broken == null && !s.indexBacklog.isEmpty()) {
            try {
                s.git.updateIndex(s.files.root(), s.indexBacklog);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "could not update the index at shutdown", e);
            }
        }
        if (s.journal != null && !thread.isAlive()) {
            try {
                s.journal.close(); // what it holds, if anything, is for the next start
            } catch (IOException e) {
                LOG.log(Level.WARNING, "could not close the ledger journal", e);
            }
        }
    }
}
