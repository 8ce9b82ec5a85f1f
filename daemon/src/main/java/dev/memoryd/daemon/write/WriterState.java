package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.grammar.CreateEntity;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.IdGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;

/**
 * What the rooms of one branch's writer ({@link Admission}, {@link Publisher}, {@link HumanIntake},
 * {@link Recovery}) share: the stores they write, and the state one batch leaves for the next (the
 * recorded commit and texts, the index backlog, idempotency keys).
 *
 * <p>Thread-safety: the mutable state is confined to the writer thread (and to {@link
 * WritePipeline#recover} before it starts), except {@link #idempotent} (concurrent), {@link #drift}
 * (volatile, set before start), {@link #listeners} (copy-on-write), {@link #journal} (set before
 * start) and the publication readers wait for ({@link #awaitPublished}, any thread). The stores are the writer's; other threads only read through them.
 */
final class WriterState {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    final GrammarFiles grammars;
    final WritePipeline.FileStore files;
    final GitStore git;
    final Chain chain;
    final SectionHasher hasher;
    final IdGenerator ids;
    final Clock clock;
    final BranchName branch;
    final PhaseStats stats = new PhaseStats();
    final WriterHealth health;
    final Replayers replayers;
    /** The working tree's index, kept in step with every batch (null for a branch not checked out). */
    final dev.memoryd.daemon.git.WorkTreeIndex index;
    /** Whether git rolled back the full segment before the active one (see the class). */
    final FullSegmentCheck fullSegment = new FullSegmentCheck(this);
    /** Whether git would now convert memory files' line ends (see the class). */
    final LineEndCheck lineEnds = new LineEndCheck(this);

    final IndexFormatCheck indexForm = new IndexFormatCheck(this);
    /** Where a batch's ledger lines are forced before git commands are kept out; null: the segment itself. */
    dev.memoryd.ledger.Journal journal;

    /**
     * Completed once a batch whose declarations were answered at ledger durability is published
     * (or redone from the ledger); null when none is being published.
     */
    private volatile java.util.concurrent.CompletableFuture<Void> publishing;

    /** A batch is about to be answered before it is published: reads wait for it from now on. */
    void publishing() {
        publishing = new java.util.concurrent.CompletableFuture<>();
    }

    /** The batch answered before it was published is published: reads go on. */
    void donePublishing() {
        java.util.concurrent.CompletableFuture<Void> f = publishing;
        if (f != null) {
            publishing = null;
            f.complete(null);
        }
    }

    /**
     * Waits until every declaration answered so far at ledger durability is published (at most
     * {@code timeoutMs}): false when the wait timed out. Any thread; returns at once when none waits.
     */
    boolean awaitPublished(long timeoutMs) throws InterruptedException {
        java.util.concurrent.CompletableFuture<Void> f = publishing;
        if (f == null) {
            return true;
        }
        try {
            f.get(timeoutMs, java.util.concurrent.TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return true;
        }
    }

    final Map<String, IdempotentWrite> idempotent = new ConcurrentHashMap<>();
    final Map<String, ObjectId> indexBacklog = new LinkedHashMap<>();
    volatile DriftView drift = DriftView.NONE;
    /** Recorded text (what the ledger replays to) of memory files, by path; misses read {@link #captured}. */
    final Map<RepoPath, Optional<String>> recorded = new HashMap<>();
    /**
     * For memory files whose recorded text a captured human commit set, with nothing recorded for
     * them since: the text memoryd recorded before that commit (see {@link
     * WriteBatch#keptMemorydsText}); writer thread only.
     */
    final Map<RepoPath, String> beforeHumanCommit = new HashMap<>();

    /**
     * memoryd's bytes of files that commits made with git changed, for its next commit: the chain's
     * ledger files (see {@link LedgerPutBack}) and memory files a commit made from an index read
     * before memoryd's write took its last write out of ({@link HumanIntake}); writer thread only.
     */
    final Map<String, byte[]> putBackNext = new java.util.TreeMap<>();

    /**
     * Run by a batch after it read and staged its files and before it takes git's index lock; null
     * in a served root. For tests that act as a git command in that window.
     */
    volatile Runnable beforeIndexLock;

    /**
     * Run by a batch after it read and staged its files and before it looks at the index for git's
     * rewrites ({@link GitRewrites#beforeLock}); null in a served root. For tests that act as a git
     * command in that window.
     */
    volatile Runnable beforeIndexLook;

    /** The commit whose memory files the recorded texts reflect; null before the first. */
    ObjectId captured;

    /**
     * The commit memoryd itself put at the branch's tip last (a batch's, a put-back's, a ledger
     * commit's), so the watcher, on its own thread, can tell memoryd's moves of the branch from a
     * git command's. Null before the first.
     */
    volatile ObjectId ownTip;

    /**
     * memoryd moved the branch to a commit of its own ({@link GitStore#head} now): its files are
     * the recorded texts' base, and the watcher takes the move for memoryd's ({@link #ownTip}).
     * Writer thread.
     */
    void movedToOwnCommit() {
        captured = git.head();
        ownTip = captured;
    }

    final List<java.util.function.Consumer<List<Event>>> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    WriterState(
            GrammarFiles grammars,
            WritePipeline.FileStore files,
            GitStore git,
            Chain chain,
            SectionHasher hasher,
            IdGenerator ids,
            Clock clock,
            BranchName branch) {
        this.grammars = grammars;
        this.files = files;
        this.git = git;
        this.chain = chain;
        this.hasher = hasher;
        this.ids = ids;
        this.clock = clock;
        this.branch = branch;
        this.index = files.workTree() ? new dev.memoryd.daemon.git.WorkTreeIndex(git.repository(), files.root()) : null;
        this.health = new WriterHealth(clock);
        this.replayers = new Replayers(grammars, hasher);
    }

    /** The grammar in force on this branch (its recorded files'): on the writer thread only. */
    Grammar grammarInForce() {
        return grammars.inForce(this::recordedText);
    }

    /** The chain-trailer value of this writer's commits: null when the chain is the branch's own. */
    String chainTrailer() {
        return chain.branch().equals(branch) ? null : chain.branch().value();
    }

    /** How long a batch waits for a git command holding the index or the branch's ref lock (read per batch: tests change it). */
    static long lockWaitMs() {
        return Long.getLong("memoryd.refLockWaitMs", 2000);
    }

    Optional<String> recordedText(RepoPath p) {
        return recorded.computeIfAbsent(p, k -> {
            try {
                return captured == null
                        ? Optional.empty()
                        : git.read(captured, k.value()).map(b -> new String(b, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /**
     * Reads a file of the working tree for a batch. A text that differs from the recorded one is
     * read again once no git command is rewriting the tree, when one may have been at it during
     * the read: git deletes and re-creates each file it checks out, and a file caught missing or
     * half written is not a human's edit. Such a text of a file git's index holds in conflict is
     * git's, and is not read: {@link UnmergedFile}.
     */
    Optional<String> readSettled(RepoPath p) throws IOException {
        Optional<String> t = readSettledOrUnmerged(p);
        unmerged.remove(p);
        return t;
    }

    /**
     * Memory files left out of a batch because git's index holds them in conflict ({@link
     * UnmergedFile}), until a read finds them merged: captured again when the index changes.
     * Any thread may read it.
     */
    final java.util.Set<RepoPath> unmerged = ConcurrentHashMap.newKeySet();

    private Optional<String> readSettledOrUnmerged(RepoPath p) throws IOException {
        if (index == null) {
            return files.read(p);
        }
        // The text the last write made, the usual find, needs no look at git's index: only a text
        // that differs is read again between two looks, to tell a git command's rewrite under way
        // from a human's edit. (A look lists the git directory and stats two files, once per read.)
        Optional<String> last = recordedText(p);
        if (files.holds(p, last)) {
            return last;
        }
        for (int tries = 0; ; tries++) {
            dev.memoryd.daemon.git.WorkTreeIndex.Mark before = index.mark();
            Optional<String> t;
            try {
                t = files.read(p);
            } catch (dev.memoryd.daemon.layout.NotMemoryText e) {
                return afterSaveSettles(p, null, e); // a save caught mid-character, or a file in another encoding
            }
            Optional<String> recorded = recordedText(p);
            if (t.equals(recorded)) {
                // The recorded instance: the text the last write made, whose parse, lint and hash are
                // kept by it, so the next write finds them without hashing a fresh copy of the file.
                return recorded;
            }
            if (tries == 5 || !index.mayHaveRaced(before)) {
                if (recorded.isPresent()
                        && !heldByTheQueue(p, t)
                        && dev.memoryd.daemon.git.OlderVersion.putBackByGit(git, p.value(), t)) {
                    putBack(p, t, recorded.get());
                    return recorded;
                }
                if (index.inConflict(p.value())) {
                    unmerged.add(p);
                    throw new UnmergedFile(p);
                }
                return afterSaveSettles(p, t, null);
            }
            index.awaitGitDone(lockWaitMs());
        }
    }

    /**
     * Whether the file on disk is the text an open drift item holds (absent, for a deletion): the
     * human's own edit waiting for a maintainer, never a version git put back. A human's commit
     * that deleted a file leaves it absent on disk and in the index, as the branch had it at that
     * commit, which is how git's own rollback of a file looks too.
     */
    private boolean heldByTheQueue(RepoPath p, Optional<String> disk) {
        return drift.openOn(p)
                .filter(o -> java.util.Objects.equals(o.text(), disk.orElse(null)))
                .isPresent();
    }

    /** How long after a file's last change a text read from it counts as a finished save. */
    static final long SAVE_SETTLE_MS = Long.getLong("memoryd.saveSettleMs", 100);

    /**
     * {@code t}, or the file read again once its save has settled: an editor that saves in place
     * truncates the file and then writes it, and a text caught in between (empty, or cut short) is
     * not the human's edit; taken for one, it opened a drift item in their name. So a text read
     * within {@link #SAVE_SETTLE_MS} of the file's last change is read again once that long has
     * passed (a few times at most, while the file keeps changing). {@code bad} (else null): the read
     * found bytes that are not UTF-8, thrown again if they still are once the save has settled.
     */
    private Optional<String> afterSaveSettles(
            RepoPath p, Optional<String> t, dev.memoryd.daemon.layout.NotMemoryText bad) throws IOException {
        java.nio.file.Path f = files.root().resolve(p.value());
        for (int i = 0; i < 5; i++) {
            long age;
            try {
                age = clock.millis()
                        - java.nio.file.Files.getLastModifiedTime(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                                .toMillis();
            } catch (java.nio.file.NoSuchFileException e) {
                return Optional.empty();
            }
            if (age < 0 || age >= SAVE_SETTLE_MS) {
                break; // settled, or a clock that is not the file system's (tests): nothing to wait for
            }
            try {
                Thread.sleep(SAVE_SETTLE_MS - age);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while a save settled");
            }
            try {
                t = files.read(p);
                bad = null;
            } catch (dev.memoryd.daemon.layout.NotMemoryText e) {
                bad = e;
            }
        }
        if (bad != null) {
            throw bad;
        }
        return t;
    }

    /** The last file {@link #putBack} wrote back, for {@code ping}; null: none since the start. Any thread. */
    final java.util.concurrent.atomic.AtomicReference<PutBack> lastPutBack =
            new java.util.concurrent.atomic.AtomicReference<>();

    /**
     * Writes the recorded text back over an older version a git command put in the working tree
     * (see {@link dev.memoryd.daemon.git.OlderVersion}); the index gets its entry with the next
     * batch.
     */
    private void putBack(RepoPath p, Optional<String> older, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        ResetRecovery.writeAtomically(files.root().resolve(p.value()), bytes);
        try (org.eclipse.jgit.lib.ObjectInserter.Formatter fmt = new org.eclipse.jgit.lib.ObjectInserter.Formatter()) {
            indexBacklog.put(p.value(), fmt.idFor(org.eclipse.jgit.lib.Constants.OBJ_BLOB, bytes));
        }
        lastPutBack.updateAndGet(last -> PutBack.after(last, p.value(), clock.instant()));
        LOG.warning("a git command put " + (older.isPresent() ? "an older version of " : "away ") + p.value()
                + " in the working tree (the index records it, and the branch held it before) without a"
                + " commit; memoryd put back the text it recorded: acknowledged writes leave the branch only"
                + " by a commit");
    }

    /**
     * The blobs the branch head holds for this chain's last two segment files (the active one and
     * the one before it: a full segment is never written again, so nothing else would mend its
     * index entry).
     */
    /**
     * Paths memoryd recorded in the index lately, newest last (at most {@value #LATELY}): where a
     * git command that writes back an index it read before memoryd's batch (a plain {@code git
     * commit} that then fails on the ref memoryd moved) takes memoryd's entries back.
     */
    private final java.util.LinkedHashSet<String> lately = new java.util.LinkedHashSet<>();

    private static final int LATELY = 64;

    /** Notes {@code paths} as recorded in the index by memoryd just now. */
    void recordedInIndex(java.util.Collection<String> paths) {
        for (String p : paths) {
            lately.remove(p);
            lately.add(p);
        }
        for (java.util.Iterator<String> i = lately.iterator(); lately.size() > LATELY; ) {
            i.next();
            i.remove();
        }
    }

    /**
     * The blob the branch head holds for each file memoryd recorded in the index lately and for
     * its last two ledger segments (the one before the active one may have been filled since).
     */
    Map<String, ObjectId> latelyAtHead() {
        ObjectId head = git.head();
        if (head == null) {
            return new LinkedHashMap<>();
        }
        String active = chain.activeSegmentPath();
        java.util.Set<String> paths = new java.util.LinkedHashSet<>(List.of(active));
        long first = chain.firstSeqOf(active);
        if (first > 1) {
            paths.add(chain.segmentPath(first - 1));
        }
        paths.addAll(lately);
        try {
            return git.blobIds(head, paths);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void notifyListeners(List<Event> events) {
        for (java.util.function.Consumer<List<Event>> l : listeners) {
            try {
                l.accept(events);
            } catch (RuntimeException e) {
                // The events are recorded and published; a listener keeps derived state (search, chunk
                // graph, queues), and its failure must not turn the reply into "not recorded".
                LOG.log(
                        Level.SEVERE,
                        "a listener failed on recorded events " + events.get(0).seq() + ".."
                                + events.get(events.size() - 1).seq() + "; its derived state may lag until restart",
                        e);
            }
        }
    }

    List<Op> withSliceIds(List<Op> ops) {
        List<Op> out = new ArrayList<>(ops.size());
        for (Op op : ops) {
            if (op instanceof CreateEntity c
                    && (c.sliceIds() == null || c.sliceIds().isEmpty())) {
                out.add(c.withSliceIds(List.of(ids.next().value(), ids.next().value())));
            } else {
                out.add(op);
            }
        }
        return out;
    }
}
