package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.git.CommitBatch;
import dev.memoryd.daemon.git.CommitFormat;
import dev.memoryd.daemon.git.WorkTreeIndex;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.write.BatchLocks.LockedOut;
import dev.memoryd.daemon.write.BatchLocks.RedoBatch;
import dev.memoryd.daemon.write.WriteBatch.Accepted;
import dev.memoryd.daemon.write.WritePipeline.IoAction;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Publishing a batch's accepted declarations: ledger lines, commits, files and the ref move,
 * with the undoing of a batch that fails before the ref moves ({@link BatchRollback}, or an
 * {@link UnsettledBatch} left for {@link #settle}), then the replies. Also the background work a
 * batch leaves: staging temp files and rolling up packs.
 *
 * <p>Thread-safety: called on the writer thread only; its stager and compactor threads touch
 * only the files and packs handed to them, and its ref thread only the branch's ref lock and the
 * batch's flushed pack, which the writer leaves alone until it has awaited that thread's work.
 *
 * <p>Longer than a room: the order of a publication (what is made durable before git commands are
 * kept out, what is done while they are, what is undone when it fails) reads in one place.
 */
final class Publisher {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());
    private static final int COMPACT_EVERY = Integer.getInteger("memoryd.compactEvery", 16);

    private final WriterState s;
    private int batchesSinceCompaction;
    private Future<?> compaction;
    private final ExecutorService stager = Executors.newSingleThreadExecutor(r -> daemon(r, "memoryd-stage"));
    private final ExecutorService compactor = Executors.newSingleThreadExecutor(r -> daemon(r, "memoryd-compact"));
    /**
     * Forces the ledger off the writer thread, in order: a batch's journal while its commits are
     * built, and a published batch's segment (then its journal cleared) while it is answered. One
     * thread, so a batch's journal is never written before the segment the journal before it
     * stood in for is forced.
     */
    private final ExecutorService ledgerSync = Executors.newSingleThreadExecutor(r -> daemon(r, "memoryd-ledger-sync"));
    /**
     * Writes and forces a batch's new ref value into the ref lock while the writer flushes the
     * pack, then forces the flushed pack, while the writer prepares the index: each force waits
     * for a journal commit, which the writer would otherwise wait for alone. The writer awaits
     * both before git's index lock, so the ref never names a commit whose pack is not on disk.
     */
    private final ExecutorService refPrep = Executors.newSingleThreadExecutor(r -> daemon(r, "memoryd-ref"));
    /** The last published batch's segment force: awaited before the next batch or task touches the chain or journal. */
    private volatile Future<?> segmentForce;

    private final BatchUndo undo;
    private final GitRewrites rewrites;

    Publisher(WriterState s) {
        this.s = s;
        this.undo = new BatchUndo(s);
        this.rewrites = new GitRewrites(s);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Before a batch: redoes a batch answered at ledger durability whose publication failed (see
     * {@link #forward}), else finishes undoing a failed batch whose rollback failed ({@link
     * BatchUndo#settle}); empty once done, else the refusal for the batch.
     */
    Optional<Failure> settle() {
        awaitSegmentForce();
        if (owed != null) {
            return forward(); // the batch is the retry: writes resume as soon as the cause is gone
        }
        return undo.settle();
    }

    /** While writes pause: redoes an owed batch once the back-off since its last try has passed. */
    void retryOwed() {
        if (owed != null && s.health.mayRetry()) {
            awaitSegmentForce();
            forward();
        }
    }

    /**
     * Waits for the last published batch's segment force, so that this thread may cut, write or
     * close the chain and the journal. Its failure was logged where it ran, and the chain refuses
     * writes from then on.
     */
    void awaitSegmentForce() {
        if (segmentForce != null) {
            quietly(segmentForce);
            segmentForce = null;
        }
    }

    /** Waits for {@code f}, whose failure is handled elsewhere. */
    private static void quietly(Future<?> f) {
        boolean interrupted = false;
        while (true) {
            try {
                f.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // the wait must end before the chain is touched again
            } catch (ExecutionException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    static WriteOutcome.EventRef ref(Event e) {
        return new WriteOutcome.EventRef(
                e.eventId(), e.token().value(), e.afterHash(), e.filePath(), e.sectionAnchor());
    }

    /**
     * Makes the batch's declarations durable and publishes them. Everything no one else can see
     * comes first, with no lock but the ref's: ledger lines computed and forced to the journal,
     * commits built and their pack written, temp files staged and forced. Then, holding the index
     * lock too, the short part git commands must not interleave with: ledger lines written to the
     * segment, files renamed into place, ref moved, index written. The segment and the directories
     * are forced after the index lock is let go, before anyone is answered (without a journal, the
     * segment is forced under the lock). Until the ref moves, a failure undoes what was begun (files
     * put back, ledger lines cut off) before it is thrown, so no caller hears "not recorded" of a
     * declaration a restart would redo; when that undoing fails too, {@link UnsettledBatch}.
     */
    void publish(WriteBatch b, Instant now, BatchLocks locks) throws IOException, UnsettledBatch, RedoBatch, LockedOut {
        List<Accepted> accepted = b.accepted;
        Map<RepoPath, String> overlay = b.overlay;
        long seqBefore = s.chain.head().seq();
        Map<String, byte[]> finalFiles = new LinkedHashMap<>();
        for (RepoPath p : b.diskWrites) {
            String t = overlay.get(p);
            if (t != null) {
                finalFiles.put(p.value(), t.getBytes(StandardCharsets.UTF_8));
            }
        }
        BatchRollback rollback =
                new BatchRollback(s.files, s.chain, s.journal, seqBefore, finalFiles, before(b, finalFiles.keySet()));
        long t1 = System.nanoTime();
        List<List<Event>> events = new ArrayList<>();
        List<Map<String, byte[]>> segments = new ArrayList<>();
        try {
            for (Accepted a : accepted) {
                events.add(s.chain.prepare(a.drafts()));
                segments.add(s.chain.preparedSegments());
                if (a.p().req().mutation() instanceof WritePipeline.ChainHook hook) {
                    rollback.andThen(() -> hook.afterUndo(s.chain));
                    hook.afterAppend(s.chain); // e.g. a key rotation: lines after this one use the new key
                }
            }
        } catch (RuntimeException e) {
            awaitSegmentForce(); // the undo cuts the chain and clears the journal
            UnsettledBatch u = undo.undo(rollback, e);
            if (u != null) {
                throw u;
            }
            throw e;
        }
        long t2 = System.nanoTime();
        s.stats.add(PhaseStats.Phase.LEDGER_APPEND, t2 - t1);
        // The temp files are written and forced meanwhile; they are renamed into place only once the
        // ledger holds every line they reflect and git commands are kept out.
        Set<String> skipped = ConcurrentHashMap.newKeySet();
        IoAction placed = null;
        Future<IoAction> staged = stager.submit(() -> {
            long s0 = System.nanoTime();
            Map<String, Optional<String>> expected = new HashMap<>();
            for (String f : finalFiles.keySet()) {
                Optional<String> seen = b.diskSeen.get(RepoPath.of(f));
                if (seen != null) {
                    expected.put(f, seen);
                }
            }
            IoAction a = s.files.stage(finalFiles, expected, path -> {
                skipped.add(path);
                LOG.warning(
                        path
                                + " was saved by someone else while memoryd wrote it; their version is kept and will be captured");
            });
            s.stats.add(PhaseStats.Phase.FILES, System.nanoTime() - s0);
            return a;
        });
        List<ObjectId> commits = new ArrayList<>();
        boolean answered = false;
        Map<String, Long> sizes = new HashMap<>();
        Map<String, byte[]> committed = new HashMap<>(); // each path's bytes in the batch's last commit
        Map<String, ObjectId> indexed = Map.of();
        Map<String, ObjectId> clean = Map.of();
        Future<?> journaling = null;
        Future<?> refPrepared = null;
        Future<?> packForced = null;
        try (CommitBatch gb = s.git.batch()) {
            boolean written = false;
            boolean journaled = false;
            try {
                if (s.journal != null) {
                    // Forced while the commits are built: the lock is then held for no fsync of the ledger.
                    Chain.Force toJournal = s.chain.journalLater(s.journal);
                    journaled = true;
                    journaling = ledgerSync.submit(() -> {
                        long j0 = System.nanoTime();
                        toJournal.run();
                        s.stats.add(PhaseStats.Phase.LEDGER_FSYNC, System.nanoTime() - j0);
                        return null;
                    });
                }
                for (int i = 0; i < accepted.size(); i++) {
                    Accepted a = accepted.get(i);
                    List<Event> ev = events.get(i);
                    Event last = ev.get(ev.size() - 1);
                    Map<String, byte[]> commitFiles = new LinkedHashMap<>();
                    if (i == 0) {
                        commitFiles.putAll(s.putBackNext); // the batch's own segment lines go on top
                    }
                    a.contents()
                            .forEach((p, t) ->
                                    commitFiles.put(p.value(), t == null ? null : bytesOf(p, t, b, finalFiles)));
                    commitFiles.putAll(segments.get(i));
                    committed.putAll(commitFiles);
                    commits.add(gb.commit(
                            commitFiles,
                            a.author() != null
                                    ? a.author()
                                    : CommitFormat.author(a.p().req().actor(), now),
                            CommitFormat.committer(now),
                            CommitFormat.message(
                                    Mutation.summaries(a.specs()),
                                    a.p().req().rationale(),
                                    a.p().req().actor(),
                                    ev.stream().map(Event::eventId).toList(),
                                    last.seq(),
                                    last.integrity().lineHash(),
                                    s.chainTrailer()),
                            a.p().req().mutation() instanceof WritePipeline.MergeParent mp ? mp.mergeParent() : null));
                }
                committed.forEach((p, bytes) -> sizes.put(p, bytes == null ? -1L : bytes.length));
                if (s.files.workTree()) {
                    sizes.putAll(UnplacedFiles.unlikeDisk(s.files.root(), committed, finalFiles.keySet()));
                }
                long t5 = System.nanoTime();
                s.stats.add(PhaseStats.Phase.GIT_COMMIT, t5 - t2);
                refPrepared = refPrep.submit(() -> {
                    gb.prepareMove(); // the lock is the ref only once renamed: before the pack is flushed is fine
                    return null;
                });
                gb.flush();
                packForced = refPrep.submit(() -> {
                    gb.forceFlushed(); // before the ref names the batch's commits: the pack's bytes on disk
                    return null;
                });
                long t6 = System.nanoTime();
                s.stats.add(PhaseStats.Phase.GIT_FLUSH, t6 - t5);
                long r = System.nanoTime();
                IoAction ready = awaitDurable(staged); // forced before git commands are kept out, too
                s.stats.add(PhaseStats.Phase.WAIT_DURABLE, System.nanoTime() - r);
                long p0 = System.nanoTime();
                indexed = s.files.workTree() ? toRecord(gb, skipped, sizes) : Map.of();
                WorkTreeIndex.Prepared prepared =
                        s.files.workTree() ? prepareIndex(gb, locks, ready, indexed, sizes) : null;
                s.stats.add(PhaseStats.Phase.INDEX_PREPARE, System.nanoTime() - p0);
                long l0 = System.nanoTime();
                if (journaling != null) {
                    awaitDurable(journaling); // and with it the force of the segment before, queued first
                }
                awaitDurable(refPrepared);
                awaitDurable(packForced);
                s.stats.add(PhaseStats.Phase.WAIT_DURABLE, System.nanoTime() - l0);
                Runnable lookHook = s.beforeIndexLook;
                if (lookHook != null) {
                    lookHook.run();
                }
                prepared = current(prepared, b, finalFiles.keySet(), gb, locks, ready, indexed, sizes);
                l0 = System.nanoTime();
                Runnable hook = s.beforeIndexLock;
                if (hook != null) {
                    hook.run();
                }
                for (int tries = 0; prepared != null && tries < 4; tries++) {
                    if (locks.tryPrepared(prepared)) {
                        break;
                    }
                    // A git command wrote the index (or held its lock) meanwhile: built and looked at again.
                    prepared = current(prepared, b, finalFiles.keySet(), gb, locks, ready, indexed, sizes);
                }
                locks.lockIndex(prepared); // unless held already: waits, and edits under the lock if it must
                if (locks.index != null && !locks.index.prepared()) {
                    s.stats.count(PhaseStats.Count.LOCKED_INDEX_EDITS);
                }
                if (rewrites.underLock(b, finalFiles.keySet(), locks)) {
                    throw new RedoBatch();
                }
                long w = System.nanoTime();
                s.stats.add(PhaseStats.Phase.INDEX_LOCK, w - l0);
                if (locks.index != null) {
                    s.stats.add(PhaseStats.Phase.INDEX_CHECK, w - locks.heldSince);
                }
                written = true;
                s.chain.writePrepared();
                long sw = System.nanoTime();
                s.stats.add(PhaseStats.Phase.SEGMENT_WRITE, sw - w);
                if (s.journal == null) {
                    s.chain.sync();
                    s.stats.add(PhaseStats.Phase.LEDGER_FSYNC, System.nanoTime() - sw);
                }
                // The lines are durable (the journal, forced before the lock, or the segment): from
                // here on the batch is rolled forward, never undone, so ledger-level replies go now.
                answered = answerAtLedger(accepted, events);
                long r0 = System.nanoTime();
                placed = ready;
                ready.run(); // only now: the ledger holds every line these files reflect
                s.stats.add(PhaseStats.Phase.FILES_PLACE, System.nanoTime() - r0);
                if (s.files.workTree()) {
                    clean = new LinkedHashMap<>(indexed);
                    clean.keySet().removeAll(skipped); // a human's save, met at the rename
                    publishIndex(locks, clean, sizes, gb.removed());
                }
                long m = System.nanoTime();
                gb.moveRef().orThrow();
                s.stats.add(PhaseStats.Phase.GIT_REF, System.nanoTime() - m);
            } catch (IOException | RuntimeException | RedoBatch | LockedOut e) {
                if (refPrepared != null) {
                    quietly(refPrepared); // the undo may let go of the ref lock it writes
                }
                if (packForced != null) {
                    quietly(packForced);
                }
                if (journaling != null) {
                    quietly(journaling); // the undo clears the journal: never before it was written
                }
                awaitSegmentForce();
                restoreIndex(locks); // the ref did not move: the index must not stage what is undone
                // Never leave the stager running past a failed batch, then undo what was done.
                abortStaged(staged, placed);
                if (answered) {
                    // Some of the batch was answered as recorded: it is redone from the ledger instead,
                    // before the next batch (or while writes pause), once this batch's commits are
                    // let go; its other declarations hear that they may still be recorded.
                    owed = new OwedBatch(b, seqBefore, e);
                    s.donePublishing(); // readers waiting for it wake, see it owed and are refused at once
                    LOG.log(
                            Level.WARNING,
                            "a batch answered once its ledger lines were durable could not be published; it is"
                                    + " redone from the ledger",
                            e);
                    throw new UnsettledBatch("its ledger lines are kept and it is redone from them", e);
                }
                if (!written
                        && (e instanceof RedoBatch || e instanceof LockedOut)
                        && undo.forgetJournal(journaled, e)) {
                    s.chain.discardPrepared(); // nothing reached the segment, and the journal holds nothing
                    throw e;
                }
                UnsettledBatch u = undo.undo(rollback, e);
                if (u != null) {
                    throw u;
                }
                if (e instanceof IOException io) {
                    throw io;
                }
                if (e instanceof RuntimeException re) {
                    throw re;
                }
                throw new IllegalStateException(e);
            }
            // Published: from here on nothing may undo it, and every reply says it is recorded.
            s.putBackNext.clear();
            removeStale(b);
            if (s.files.workTree()) {
                releaseIndex(locks, clean);
                s.recordedInIndex(clean.keySet());
            }
        }
        // The segment and the renames are made durable after the index lock is let go (git commands
        // wait for no fsync of ours). The renames before anyone is answered; the segment meanwhile on
        // the ledger's thread, the journal standing in for it until it is forced (a restart appends
        // what the journal holds and the segment lacks); the next batch starts once it is (settle).
        if (s.journal != null) {
            Chain.Force toSegment = s.chain.syncLater();
            dev.memoryd.ledger.Journal journal = s.journal;
            segmentForce = ledgerSync.submit(() -> {
                long f0 = System.nanoTime();
                try {
                    toSegment.run();
                    journal.clear(false); // stale from here on: the segment holds its lines
                } catch (IOException | RuntimeException e) {
                    // Published already: the journal (kept) and the branch's commit both hold the lines.
                    LOG.log(
                            Level.SEVERE,
                            "could not force the ledger after a write; its journal and the branch hold it",
                            e);
                }
                s.stats.add(PhaseStats.Phase.LEDGER_FSYNC, System.nanoTime() - f0);
            });
        }
        if (placed != null) {
            long d0 = System.nanoTime();
            try {
                placed.settle();
            } catch (IOException e) {
                // Published already; the ledger, fsynced first, lets recovery redo a rename a crash loses.
                LOG.log(Level.WARNING, "could not fsync the directories of a write; the ledger holds it", e);
            }
            s.stats.add(PhaseStats.Phase.FILES_RENAME, System.nanoTime() - d0);
        }
        published(b, events, commits);
        if (++batchesSinceCompaction >= COMPACT_EVERY && (compaction == null || compaction.isDone())) {
            batchesSinceCompaction = 0;
            compaction = compactor.submit(this::compact);
        }
    }

    /**
     * What the writer records of a published batch, then its replies: the texts it wrote (what
     * humans' saves are compared with), its events to the listeners (before any client hears of
     * it, so a reply never outruns them) and each declaration's commit.
     */
    private void published(WriteBatch b, List<List<Event>> events, List<ObjectId> commits) throws IOException {
        List<Accepted> accepted = b.accepted;
        b.overlay.forEach((p, t) -> {
            // Memory files are compared with what humans saved; the grammar's files decide the grammar in force.
            if (RootLayout.isMemoryFile(p) || GrammarFiles.isGrammarFile(p)) {
                s.recorded.put(p, Optional.ofNullable(t));
            }
            if (b.committedByHuman(p) && b.fromCommits.get(p) != null) {
                s.beforeHumanCommit.put(p, b.fromCommits.get(p)); // until a later batch records the file
            } else {
                s.beforeHumanCommit.remove(p);
            }
        });
        s.movedToOwnCommit();
        s.health.succeeded(); // before any reply: a client that asks right after sees the writer as it is
        s.stats.batch(accepted.size());
        for (List<Event> ev : events) {
            s.notifyListeners(ev);
        }
        for (int i = 0; i < accepted.size(); i++) {
            Accepted a = accepted.get(i);
            WriteOutcome out = new WriteOutcome.Committed(
                    commits.get(i).name(),
                    events.get(i).stream().map(Publisher::ref).toList(),
                    false,
                    a.proposal());
            if (a.p().req().idempotencyKey() != null) {
                s.idempotent.put(
                        a.p().req().idempotencyKey(),
                        new IdempotentWrite(a.p().req().fingerprint(), out));
            }
            a.p().future().complete(out); // a no-op for a declaration answered at ledger durability
        }
        s.donePublishing();
    }

    /**
     * Answers the batch's declarations that asked for {@link Durability#LEDGER} (their lines are
     * durable): true when any was. Reads wait until the batch is published ({@link
     * WriterState#awaitPublished}). A declaration that became a proposal is answered with its
     * proposal, once published; so is every declaration on a branch that is not checked out.
     */
    private boolean answerAtLedger(List<Accepted> accepted, List<List<Event>> events) {
        if (!s.files.workTree()) {
            return false; // a branch in Git alone publishes with one ref move: answered at its commit
        }
        boolean any = false;
        for (int i = 0; i < accepted.size(); i++) {
            Accepted a = accepted.get(i);
            if (a.p().req().durability() != Durability.LEDGER || a.proposal() != null) {
                continue;
            }
            if (!any) {
                s.publishing();
                any = true;
            }
            a.p().future()
                    .complete(new WriteOutcome.Recorded(
                            events.get(i).stream().map(Publisher::ref).toList()));
        }
        return any;
    }

    /** A batch answered at ledger durability whose publication failed: redone from the ledger. */
    private record OwedBatch(WriteBatch batch, long seqBefore, Exception cause) {}

    /** The batch to redo before any other, or null (set and cleared on the writer thread). */
    private volatile OwedBatch owed;

    /**
     * Takes out of the working tree the stale copies of files that commits made elsewhere deleted
     * ({@link BehindBranch}), still under the index lock: only a file that holds exactly its old
     * bytes, which the branch's history keeps. One that cannot be deleted stays, as before memoryd
     * looked at it, and is reported; the batch is published either way.
     */
    private void removeStale(WriteBatch b) {
        if (b.diskRemovals.isEmpty()) {
            return;
        }
        try {
            java.util.Set<String> removed = s.files.removeIfHolding(b.diskRemovals);
            LOG.info("took out of the working tree " + removed
                    + ", deleted by commits made elsewhere while their files stayed behind");
        } catch (IOException e) {
            LOG.log(
                    Level.WARNING,
                    "could not take " + b.diskRemovals.keySet()
                            + " out of the working tree after commits made elsewhere deleted them; they stay on disk",
                    e);
        }
    }

    /** Whether a batch answered at ledger durability waits to be redone from the ledger. */
    boolean owes() {
        return owed != null;
    }

    /**
     * Redoes the owed batch from the ledger onto the branch ({@link RollForward}, as a restart
     * would): its segment forced, then one commit per declaration, the files where they still hold
     * the branch's or memoryd's text, the index when writes pause. Empty once done; else the
     * refusal for other writes until it is (the next try comes with the writer's back-off).
     */
    private Optional<Failure> forward() {
        OwedBatch o = owed;
        try {
            s.chain.sync();
            s.git.releaseRef(); // the redo moves the ref with a lock of its own
            // A ref lock of ours the failed move could not remove (its directory turned immutable,
            // say) is removed by a hold once the directory allows it; the redo's own lock then takes.
            if (s.git.holdRef(WriterState.lockWaitMs())) {
                s.git.releaseRef();
            }
            RollForward.Result r;
            try {
                r = new RollForward(s.chain, s.git, s.files, s.replayers, s.chainTrailer()).run(o.seqBefore());
            } finally {
                s.git.reloadHead();
            }
            if (r.groups().size() != o.batch().accepted.size()) {
                throw new IllegalStateException("the ledger holds " + r.groups().size() + " declaration(s) after line "
                        + o.seqBefore() + ", the batch " + o.batch().accepted.size());
            }
            owed = null;
            if (s.files.workTree()) {
                s.indexBacklog.putAll(r.written());
            }
            LOG.info("redid " + r.groups().size() + " declaration(s) from the ledger; writes resume");
            published(o.batch(), r.groups(), r.commits());
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            s.health.unsettled(e);
            return Optional.of(new Failure(
                    dev.memoryd.daemon.api.ErrorReason.UNAVAILABLE,
                    "memoryd acknowledged writes whose ledger lines are durable but could not publish them yet ("
                            + WriterHealth.describe(e) + "; first: " + WriterHealth.describe(o.cause())
                            + "); nothing of this request was recorded: retry once the cause is gone (a restart"
                            + " publishes them too)",
                    Failure.ordered("cause", WriterHealth.describe(e), "recorded", false)));
        }
    }

    /**
     * The index with the batch's files recorded, built before git commands are kept out; null
     * when it cannot be (see {@link BatchLocks#prepareIndex}). A file a human saved meanwhile is
     * left out, as its rename is.
     */
    private WorkTreeIndex.Prepared prepareIndex(
            CommitBatch gb, BatchLocks locks, IoAction ready, Map<String, ObjectId> indexed, Map<String, Long> sizes)
            throws IOException {
        Map<String, Long> stats = new HashMap<>(sizes);
        for (String seg : s.chain.preparedFiles()) {
            // Appended under the lock, after this index is built: git reads the segment again to
            // tell it clean (its stat is not known ahead).
            stats.put(seg, WorkTreeIndex.NOT_THE_FILE);
        }
        return locks.prepareIndex(indexed, stats, ready.modified(), gb.removed())
                .orElse(null);
    }

    /**
     * The prepared index to lock with, built again when a git command wrote the index since it was
     * prepared (a {@code git status} does after each batch), so the lock need not edit it while git
     * commands are kept out; the batch's look for git's rewrites is taken here too, before the lock
     * ({@link GitRewrites#beforeLock}). Null when there is no prepared index.
     */
    private WorkTreeIndex.Prepared current(
            WorkTreeIndex.Prepared prepared,
            WriteBatch b,
            Set<String> files,
            CommitBatch gb,
            BatchLocks locks,
            IoAction ready,
            Map<String, ObjectId> indexed,
            Map<String, Long> sizes)
            throws IOException, RedoBatch {
        for (int tries = 0; prepared != null && tries < 3; tries++) {
            if (!s.index.current(prepared)) {
                long p0 = System.nanoTime();
                prepared = prepareIndex(gb, locks, ready, indexed, sizes);
                s.stats.add(PhaseStats.Phase.INDEX_PREPARE, System.nanoTime() - p0);
                continue;
            }
            if (rewrites.beforeLock(b, files, prepared)) {
                throw new RedoBatch();
            }
            if (s.index.current(prepared)) {
                break; // else written while it was looked at: prepared and looked at again
            }
        }
        return prepared;
    }

    /**
     * What the batch records in the index: what earlier published batches could not record yet
     * (the backlog), then the batch's own files over it, less those a human saved meanwhile.
     */
    private Map<String, ObjectId> toRecord(CommitBatch gb, Set<String> skipped, Map<String, Long> sizes)
            throws IOException {
        Map<String, ObjectId> clean = new LinkedHashMap<>();
        if (s.index != null) {
            // A git command wrote the index since memoryd's last batch, and may have written back
            // one it read before: what memoryd recorded lately is recorded again where it is lacking.
            WorkTreeIndex.Stale stale = s.index.staleAmong(s::latelyAtHead);
            stale.entries().forEach(s.indexBacklog::putIfAbsent); // checked against the files below
            if (!stale.conflicted().isEmpty()) {
                s.index.lookAgain(); // a conflict is put back before the next batch (MergedSegments)
            }
        }
        if (!s.indexBacklog.isEmpty()) {
            Map<String, Long> backlogSizes = new HashMap<>();
            clean.putAll(s.git.stillAt(s.files.root(), s.indexBacklog, backlogSizes));
            backlogSizes.forEach(sizes::putIfAbsent); // the batch's own files keep their own sizes
        }
        clean.putAll(gb.written());
        clean.keySet().removeAll(skipped);
        for (String p : gb.removed()) {
            clean.remove(p);
        }
        return clean;
    }

    /**
     * {@code t}'s UTF-8 bytes: the batch's final bytes of {@code p} when {@code t} is its final text
     * (a file written once in the batch: a large file is then encoded once, not twice), else anew.
     */
    private static byte[] bytesOf(RepoPath p, String t, WriteBatch b, Map<String, byte[]> finalFiles) {
        byte[] last = b.overlay.get(p) == t ? finalFiles.get(p.value()) : null;
        return last != null ? last : t.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * What each file the batch writes held before it: the batch's own reading, else the branch
     * head's text. A reading is encoded only if the batch is undone (most never are); the head's
     * text is read now, while the store is known to be well.
     */
    private Map<String, BatchRollback.Before> before(WriteBatch b, Set<String> paths) throws IOException {
        Map<String, BatchRollback.Before> out = new HashMap<>();
        for (String p : paths) {
            Optional<String> seen = b.diskSeen.get(RepoPath.of(p));
            if (seen != null) {
                out.put(p, () -> seen.map(t -> t.getBytes(StandardCharsets.UTF_8)));
            } else {
                Optional<byte[]> atHead = s.git.head() == null ? Optional.empty() : s.git.read(s.git.head(), p);
                out.put(p, () -> atHead);
            }
        }
        return out;
    }

    /**
     * Makes the index record the batch's files before the ref moves, keeping the lock (see {@link
     * WorkTreeIndex.Held#publish}); a failure leaves them for later, and the ref moves all the same.
     */
    private void publishIndex(
            BatchLocks locks, Map<String, ObjectId> clean, Map<String, Long> sizes, Set<String> removed) {
        long t0 = System.nanoTime();
        try {
            if (locks.index != null) {
                locks.index.publish(clean, sizes, removed, s.git::modeOf);
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not update the index with a write; retried when writes pause", e);
        }
        s.stats.add(PhaseStats.Phase.INDEX, System.nanoTime() - t0);
    }

    /**
     * Puts back the index a failed batch published before its ref could move; the lock stays held
     * while the batch is undone ({@link BatchLocks#close} lets it go).
     */
    private void restoreIndex(BatchLocks locks) {
        WorkTreeIndex.Held idx = locks.index;
        if (idx == null || !idx.published()) {
            return;
        }
        try {
            idx.restore();
        } catch (IOException e) {
            // The undo goes on all the same; `git commit -a` stages the files as they are put back.
            LOG.log(
                    Level.SEVERE,
                    "could not put back the index of a batch that failed: it may stage the batch's undone files",
                    e);
        }
    }

    /** Lets the index lock go once the ref moved; files the index could not record wait for later. */
    private void releaseIndex(BatchLocks locks, Map<String, ObjectId> clean) {
        WorkTreeIndex.Held idx = locks.index;
        locks.index = null;
        if (idx == null || !idx.published()) {
            s.indexBacklog.putAll(clean);
            if (idx != null) {
                idx.close();
            }
            return;
        }
        try {
            idx.release();
            s.stats.add(PhaseStats.Phase.INDEX_HELD, System.nanoTime() - locks.heldSince);
            s.indexBacklog.clear(); // recorded with the batch's own files
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not let the index lock go after a write", e);
        }
    }

    /** Waits for the stager and removes the temp files of a batch that never renamed them into place. */
    private static void abortStaged(Future<IoAction> staged, IoAction placed) {
        try {
            IoAction a = staged.get();
            if (placed == null) {
                a.abort(); // a batch that failed before its renames leaves the files as they were
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | IOException | RuntimeException e) {
            LOG.log(
                    Level.FINE,
                    "I/O of a failed batch also failed",
                    e instanceof ExecutionException ee ? ee.getCause() : e);
        }
    }

    private static <T> T awaitDurable(Future<T> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while making a batch durable");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("making a batch durable failed", e.getCause());
        }
    }

    /** Off the writer thread: a failed roll-up leaves more packs, never wrong data. */
    private void compact() {
        long t = System.nanoTime();
        try {
            s.git.compactPacks();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "pack roll-up failed; packs stay as they are and the next roll-up retries", e);
        }
        s.stats.add(PhaseStats.Phase.COMPACT, System.nanoTime() - t);
    }

    /** Forces the last segment, stops the stager and lets a running pack roll-up finish. */
    void close() {
        awaitSegmentForce();
        ledgerSync.shutdown();
        stager.shutdown();
        refPrep.shutdown();
        compactor.shutdown();
        try {
            compactor.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
