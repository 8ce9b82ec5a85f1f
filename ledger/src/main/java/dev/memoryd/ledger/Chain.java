package dev.memoryd.ledger;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The hash chain of one branch: its head, and the lines prepared, written, read and cut off on
 * top of it. The files are {@link SegmentFiles}' job (the segment appended to is an
 * {@link ActiveSegment}), signing is {@link LineSigner}'s and reading {@link SegmentReader}'s.
 *
 * <p><b>Thread-safety:</b> single writer. A chain is not thread-safe; the caller (the daemon's
 * write path) serializes every call on a given chain. Different chains are independent. The one
 * exception is the {@link Force} tasks of {@link #journalLater} and {@link #syncLater}, which
 * another thread may run while the writer goes on, under the rules their methods state.
 *
 * <p><b>Ordering:</b> {@link #append} assigns {@code seq} head+1, head+2, … in list order, sets
 * {@code prev} to the previous line's {@code line_hash} and {@code chain} to this chain's id, and
 * writes the lines at the end of the segment files (a batch may span segments).
 *
 * <p><b>Durability:</b> {@link #append} writes through a {@link java.nio.channels.FileChannel}
 * without fsync: the lines are visible to readers but may be lost on power failure. {@link #sync}
 * is the durability point: it forces every segment written since the last sync and every directory
 * that gained an entry. An {@link IOException} while writing leaves the file in an unknown state,
 * so the chain then refuses further appends ({@link IllegalStateException}); reopen the
 * {@link Ledger}, whose torn-tail recovery and {@link #truncateAfter} restore a consistent state.
 *
 * <p><b>Cost:</b> append, sync and {@link #dirtySegments} are O(batch + one segment), independent
 * of history size: the active segment's bytes are kept in memory and only it is written.
 *
 * <p>About 500 lines, a third of them the contracts of the public methods the write path
 * calls (when each may be called, what it leaves on failure); the work itself is in the parts.
 */
public final class Chain {
    private final BranchName branch;
    private final Path dir;
    private final LedgerOptions options;
    private final int n;
    private final LineSigner signer;
    private final SegmentFiles files;

    private String chainId;
    private long headSeq;
    private String headHash;

    /** Lines {@link #prepare} computed and {@link #writePrepared} has not written yet. */
    private final PreparedBatch prepared = new PreparedBatch();

    private boolean broken;
    /** Set by a {@link #syncLater} force that failed, on whatever thread ran it. */
    private volatile boolean laterSyncFailed;
    /** Loaded by a checking command: never written, not even to cut a torn tail. */
    private boolean readOnly;

    private Chain(BranchName branch, Path ledgerDir, KeyRing keys, LedgerOptions options) {
        this.branch = branch;
        this.dir = Layout.chainDir(ledgerDir, branch);
        this.options = options;
        this.n = options.segmentLines();
        this.signer = new LineSigner(keys);
        this.files = new SegmentFiles(ledgerDir, dir, n);
        this.headSeq = 0;
        this.headHash = Integrity.GENESIS_PREV;
    }

    void markReadOnly() {
        readOnly = true;
    }

    /** A chain with no lines yet; its id is drawn on the first append. */
    static Chain empty(BranchName branch, Path ledgerDir, KeyRing keys, LedgerOptions options) {
        return new Chain(branch, ledgerDir, keys, options);
    }

    /**
     * Loads an existing chain reading only its last non-empty segment (plus any empty ones after
     * it). A torn final line (no trailing newline, or an unparseable last line) is cut off and
     * reported in {@code notes}.
     */
    static Chain load(
            BranchName branch,
            Path ledgerDir,
            KeyRing keys,
            LedgerOptions options,
            TreeMap<Long, Path> segments,
            List<String> notes)
            throws IOException {
        return load(branch, ledgerDir, keys, options, segments, notes, false);
    }

    /**
     * As {@link #load}; when {@code readOnly}, no file is touched: a torn final line is refused
     * (only a writer may cut it) and {@link #append} and {@link #truncateAfter} refuse.
     */
    static Chain load(
            BranchName branch,
            Path ledgerDir,
            KeyRing keys,
            LedgerOptions options,
            TreeMap<Long, Path> segments,
            List<String> notes,
            boolean readOnly)
            throws IOException {
        Chain c = new Chain(branch, ledgerDir, keys, options);
        c.readOnly = readOnly;
        ChainTail tail = ChainTail.read(ledgerDir, c.n, segments, notes, readOnly);
        if (tail.last() != null) {
            c.chainId = tail.last().chain();
            c.headSeq = tail.last().seq();
            c.headHash = tail.last().integrity().lineHash();
        }
        c.files.active().resume(tail.activeSeg(), tail.activeBuf(), tail.activeLen());
        return c;
    }

    /**
     * Signs lines appended from now on with {@code ring}'s current key (after a key rotation has
     * been recorded). The ring must hold every version the old one did.
     */
    public void useKeys(KeyRing ring) {
        signer.use(ring);
    }

    /** The branch this chain records. */
    public BranchName branch() {
        return branch;
    }

    /** The chain id (a ULID), or null while the chain has no lines. */
    public String id() {
        return chainId;
    }

    /** The last line's seq and line_hash; {@link Head#EMPTY} for an empty chain. */
    public Head head() {
        return new Head(headSeq, headHash);
    }

    /**
     * Appends the drafts as consecutive lines and returns the events as written. All drafts are
     * validated and encoded before any byte is written, so a bad draft writes nothing.
     *
     * @throws IllegalArgumentException if a draft's branch is not this chain's branch (for a
     *     replica's chain {@code <branch>@<replica>}, the branch part)
     * @throws UncheckedIOException if writing fails (the chain is then unusable; reopen the ledger)
     */
    public List<Event> append(List<EventDraft> drafts) {
        if (!prepared.lines().isEmpty()) {
            throw new IllegalStateException("lines are prepared and not written; write or discard them first");
        }
        List<Event> events = prepare(drafts);
        writePrepared(); // nothing reported yet: dirtySegments() reports what this wrote
        return events;
    }

    /**
     * Computes the drafts' lines on top of the head and of what was prepared before, without
     * writing anything: the events come back with their {@code seq} and {@code line_hash}, so the
     * commits that record them can be built before a byte reaches the segment file. Validated
     * and encoded as {@link #append} does; {@link #writePrepared} writes them,
     * {@link #discardPrepared} forgets them.
     */
    public List<Event> prepare(List<EventDraft> drafts) {
        ensureUsable();
        for (EventDraft d : drafts) {
            if (!branch.gitBranch().value().equals(d.branch())) {
                throw new IllegalArgumentException("draft " + d.eventId() + " is for branch \"" + d.branch()
                        + "\" but this chain records \"" + branch + "\"");
            }
        }
        if (drafts.isEmpty()) {
            return List.of();
        }
        if (prepared.unstarted()) {
            prepared.start(headSeq, headHash, chainId, signer.keys());
        }
        String id = prepared.chainId() != null
                ? prepared.chainId()
                : options.ids().next().value();
        LineSigner.Signed signed = signer.sign(prepared.seq(), prepared.hash(), id, drafts);
        prepared.add(signed.lines(), prepared.seq() + drafts.size(), signed.lastHash(), id);
        return signed.events();
    }

    /**
     * The full bytes each segment will have once everything prepared is written, for the segments
     * that the lines prepared since the last call touch (plus what {@link #dirtySegments} would
     * report): what the commit of those lines must hold.
     */
    public Map<String, byte[]> preparedSegments() {
        Map<String, byte[]> out = files.takeWithLines(headSeq, prepared.lines(), prepared.reported());
        prepared.reportedAll();
        return out;
    }

    /** The segment files {@link #writePrepared} will append to, as repository paths. */
    public Set<String> preparedFiles() {
        Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < prepared.lines().size(); i++) {
            out.add(files.relPath((headSeq + i) / n));
        }
        return out;
    }

    /**
     * Writes every prepared line at the end of its segment (no fsync: {@link #sync} is the
     * durability point) and moves the head to the last. The segments' new bytes are not reported
     * again by {@link #dirtySegments}: {@link #preparedSegments} already did.
     *
     * @throws UncheckedIOException if writing fails (the chain then refuses appends until
     *     {@link #truncateAfter} cuts off what was written)
     */
    public void writePrepared() {
        ensureUsable();
        List<byte[]> lines = prepared.lines();
        if (lines.isEmpty()) {
            forgetPrepared();
            return;
        }
        try {
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            long batchSeg = headSeq / n;
            for (int i = 0; i < lines.size(); i++) {
                long seg = (headSeq + i) / n;
                if (seg != batchSeg) {
                    files.write(batchSeg, batch.toByteArray());
                    batch.reset();
                    batchSeg = seg;
                }
                batch.writeBytes(lines.get(i));
            }
            files.write(batchSeg, batch.toByteArray());
        } catch (IOException e) {
            broken = true;
            throw new UncheckedIOException("cannot append to the ledger of branch " + branch, e);
        }
        chainId = prepared.chainId();
        headSeq = prepared.seq();
        headHash = prepared.hash();
        boolean allReported = prepared.reported() == lines.size();
        forgetPrepared();
        if (allReported) {
            files.forgetDirty();
        }
    }

    /**
     * Forces every prepared line to {@code journal} (replacing what it held), so that
     * {@link #writePrepared} may write them without waiting for the disk: {@link #sync} is then
     * the durability point of the segment, and the journal stands in until it returns.
     */
    public void journalPrepared(Journal journal) throws IOException {
        journalLater(journal).run();
    }

    /**
     * {@link #journalPrepared}, as a task another thread may run: what it writes is taken now,
     * so this chain may go on (but nothing may be written to the segment before the task
     * returns, and the journal is touched by no one else meanwhile).
     */
    public Force journalLater(Journal journal) {
        ensureUsable();
        BranchName b = branch;
        long seq = headSeq;
        String hash = headHash;
        List<byte[]> lines = List.copyOf(prepared.lines());
        return () -> {
            if (laterSyncFailed) {
                // The journal may be all that holds the lines that force was for: never replace it.
                throw new IOException("the ledger of branch " + b + " could not be forced after an earlier write");
            }
            journal.write(b, seq, hash, lines);
        };
    }

    /**
     * {@link #sync}, as a task another thread may run while this chain goes on appending: what
     * is to be forced is taken now, and the next {@code syncLater} or {@link #sync} forces only
     * what is written after. The task must return before the chain is cut ({@link
     * #truncateAfter}) or closed. When it fails, the chain refuses writes from then on, as after
     * a failed {@link #sync}.
     */
    public Force syncLater() {
        Force f = files.detachSync();
        return () -> {
            try {
                f.run();
            } catch (IOException | RuntimeException e) {
                laterSyncFailed = true;
                throw e;
            }
        };
    }

    /** A write to disk that {@link #journalLater} or {@link #syncLater} hands out to be run later. */
    @FunctionalInterface
    public interface Force {
        void run() throws IOException;
    }

    /**
     * Appends and forces the lines {@code entry} holds that this chain does not (a writer stopped
     * between forcing its journal and forcing its segment): all of them when the chain still ends
     * where the journal began, the rest when the chain ends at one of the journal's lines (a
     * segment that reached the disk in part). Returns how many lines were appended; 0 when the
     * chain already holds them all or has moved on otherwise: the journal is stale.
     *
     * @throws IllegalStateException if the lines to append do not verify or do not follow their
     *     predecessor (nothing is appended then)
     */
    public int applyJournal(Journal.Entry entry) {
        ensureUsable();
        if (!entry.branch().equals(branch)
                || entry.lines().isEmpty()
                || !prepared.lines().isEmpty()) {
            return 0;
        }
        long held = headSeq - entry.baseSeq();
        if (held < 0 || held >= entry.lines().size()) {
            return 0;
        }
        List<byte[]> rest = entry.lines().subList((int) held, entry.lines().size());
        if (held == 0) {
            if (!headHash.equals(entry.baseHash())) {
                return 0;
            }
        } else {
            byte[] line = entry.lines().get((int) held - 1);
            if (!headHash.equals(SegmentLines.parseLine(line, 0, line.length - 1, dir)
                    .integrity()
                    .lineHash())) {
                return 0; // the chain's line at that seq is another one: it moved on without the journal
            }
        }
        Event last = signer.checkFollowing(rest, headSeq, headHash, chainId, dir, branch);
        prepared.start(headSeq, headHash, chainId, signer.keys());
        prepared.add(rest, last.seq(), last.integrity().lineHash(), last.chain());
        writePrepared();
        sync();
        return rest.size();
    }

    /** Forgets what was prepared and not written; signs with the keys used before it again. */
    public void discardPrepared() {
        if (prepared.keysBefore() != null) {
            signer.restore(prepared.keysBefore());
        }
        files.giveBackTaken();
        forgetPrepared();
    }

    private void forgetPrepared() {
        prepared.forget();
        files.forgetTaken();
    }

    /** How the active segment's file on disk compares with the bytes this chain wrote there. */
    public enum DiskState {
        /** Exactly this chain's bytes. */
        INTACT,
        /** A shorter prefix of them (or no file): an older version, as a git reset or checkout writes. */
        OLDER,
        /** Anything else: not this chain's writing (tampered with). */
        ALTERED
    }

    /**
     * Compares the active segment's file with this chain's bytes: a stat when nothing touched the
     * file since this chain last wrote it, else a full comparison. Call before appending.
     */
    public DiskState activeOnDisk() throws IOException {
        return files.active().onDisk();
    }

    /**
     * The seq of the first line of the active segment whose bytes on disk differ from this
     * chain's (for messages), or -1 when none does.
     */
    public long firstAlteredSeq() throws IOException {
        return files.active().firstAlteredSeq();
    }

    /** The active segment's path relative to the memory root. */
    public String activeSegmentPath() {
        return files.relPath(files.active().index());
    }

    /**
     * Puts this chain's bytes back in the active segment's file (temp file, fsync, rename) after a
     * git command wrote an older version of it there ({@link DiskState#OLDER}).
     */
    public void restoreOlderActive() throws IOException {
        files.active().restoreOlder();
    }

    /**
     * Puts this chain's bytes back over an active segment file that was changed by hand
     * ({@link DiskState#ALTERED}), after keeping a copy of what was there in {@code keep}.
     */
    public void restoreAlteredActive(Path keep) throws IOException {
        files.active().restoreAltered(keep);
    }

    /**
     * Whether {@code bytes} are the active segment's bytes as this chain wrote them at some length:
     * its text now, or an older version of it.
     */
    public boolean isActiveVersion(byte[] bytes) {
        return files.active().isVersion(bytes);
    }

    /**
     * Puts this chain's bytes back over an active segment file that a git merge left in conflict
     * between two of this chain's own versions (a {@code stash pop} of a stash that held an older
     * one): git's conflict markers are not kept, since neither side holds anything else.
     */
    public void restoreMergedActive() throws IOException {
        files.active().restoreOverwriting();
    }

    /** How many times the active segment was put back after something replaced its file. */
    public long restoredSegments() {
        return files.active().restored();
    }

    /**
     * The durability point: forces every segment file written since the last sync
     * ({@code force(false)}) and every directory that gained or lost an entry.
     */
    public void sync() {
        try {
            files.sync();
        } catch (IOException e) {
            broken = true;
            throw new UncheckedIOException("cannot sync the ledger of branch " + branch, e);
        }
    }

    /**
     * The full current bytes of every segment touched since the last call, keyed by its path
     * relative to the memory root ({@code ledger/<branch>/<group>/<segment>.ndjson}), in segment
     * order; then forgets them. O(touched segments), not O(history). Segments deleted by
     * {@link #truncateAfter} are not reported.
     */
    public Map<String, byte[]> dirtySegments() {
        return files.dirtySegments();
    }

    /** Path, relative to the memory root, of the segment holding line {@code seq}. */
    public String segmentPath(long seq) {
        return files.relPath((seq - 1) / n);
    }

    /** The seq of the first line of the segment at {@code relPath} (as given by {@link #segmentPath}). */
    public long firstSeqOf(String relPath) {
        String name = relPath.substring(relPath.lastIndexOf('/') + 1, relPath.length() - ".ndjson".length());
        return Long.parseLong(name) * n + 1;
    }

    /**
     * Events with {@code seq >= fromSeq} up to the head at the time of this call, in order,
     * read lazily segment by segment. Must not be interleaved with {@link #truncateAfter}.
     */
    public Iterator<Event> read(long fromSeq) {
        return new SegmentReader(dir, n, files.active(), Math.max(1, fromSeq), headSeq);
    }

    /**
     * Crash recovery: drops every line after {@code seq} (lines written but never acknowledged,
     * i.e. not in the Git commit the daemon restarts from). Deletes whole segments past the one
     * holding {@code seq} and truncates that one; no other file is rewritten. The result is
     * forced to disk before returning. A no-op if {@code seq >= head().seq()}, unless an append
     * failed part-way (the chain refuses appends): then the bytes it left past the head are cut
     * off too and the chain is usable again. A rolled-back batch calls this to undo its lines.
     */
    public void truncateAfter(long seq) {
        if (seq < 0) {
            throw new IllegalArgumentException("seq must be >= 0");
        }
        if (readOnly) {
            throw new IllegalStateException("the ledger chain of branch " + branch + " was opened read-only");
        }
        if (seq > headSeq || (seq == headSeq && !broken)) {
            return;
        }
        try {
            Event last = files.cutAfter(seq, headSeq);
            headSeq = seq;
            headHash = last == null ? Integrity.GENESIS_PREV : last.integrity().lineHash();
            files.finishCut();
            broken = false; // disk and memory agree again
        } catch (IOException e) {
            broken = true;
            throw new UncheckedIOException("cannot truncate the ledger of branch " + branch, e);
        }
    }

    /** Syncs and releases file handles. */
    void close() {
        try {
            if (!broken) {
                sync();
            }
            files.closeChannels();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void ensureUsable() {
        if (readOnly) {
            throw new IllegalStateException("the ledger chain of branch " + branch + " was opened read-only");
        }
        if (laterSyncFailed) {
            broken = true;
        }
        if (broken) {
            throw new IllegalStateException(
                    "the ledger chain of branch " + branch + " failed an earlier write; reopen the ledger to recover");
        }
    }
}
