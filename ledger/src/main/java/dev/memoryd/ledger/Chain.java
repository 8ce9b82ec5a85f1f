package dev.memoryd.ledger;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;
import javax.crypto.Mac;

/**
 * The hash chain of one branch.
 *
 * <p><b>Thread-safety:</b> single writer. A chain is not thread-safe; the caller (the daemon's
 * write path) serializes every call on a given chain. Different chains are independent.
 *
 * <p><b>Ordering:</b> {@link #append} assigns {@code seq} head+1, head+2, … in list order, sets
 * {@code prev} to the previous line's {@code line_hash} and {@code chain} to this chain's id, and
 * writes the lines at the end of the segment files (a batch may span segments).
 *
 * <p><b>Durability:</b> {@link #append} writes through a {@link FileChannel} without fsync: the
 * lines are visible to readers but may be lost on power failure. {@link #sync} is the durability
 * point: it forces every segment written since the last sync and every directory that gained an
 * entry. An {@link IOException} while writing leaves the file in an unknown state, so the chain
 * then refuses further appends ({@link IllegalStateException}); reopen the {@link Ledger}, whose
 * torn-tail recovery and {@link #truncateAfter} restore a consistent state.
 *
 * <p><b>Cost:</b> append, sync and {@link #dirtySegments} are O(batch + one segment), independent
 * of history size: the active segment's bytes are kept in memory and only it is written.
 */
public final class Chain {
    private final BranchName branch;
    private final Path ledgerDir;
    private final Path dir;
    private KeyRing keys;
    private final LedgerOptions options;
    private final int n;
    private final Map<Integer, Mac> macs = new HashMap<>();

    private String chainId;
    private long headSeq;
    private String headHash;

    /** Index of the segment the next line goes to, and its current bytes. */
    private long activeSeg;

    private byte[] activeBuf;
    private int activeLen;
    private FileChannel activeCh;
    /** The file key (inode) {@link #activeCh} was opened on: a git checkout or reset replaces the file. */
    private Object activeKey;
    /** The active segment file's inode, size and mtime when it last held exactly this chain's bytes. */
    private Object[] activeStamp;

    private long restoredSegments;
    private boolean activeUnsynced;
    private boolean activeDirty;

    /** Channels of segments left behind by rollover, still to be forced by {@link #sync}. */
    private final List<FileChannel> unsynced = new ArrayList<>();
    /** Directories that gained or lost an entry since the last sync. */
    private final Set<Path> dirsToSync = new LinkedHashSet<>();
    /** Snapshots of finished segments touched since the last {@link #dirtySegments} call. */
    private final Map<String, byte[]> dirty = new LinkedHashMap<>();

    private boolean broken;
    /** Loaded by a checking command: never written, not even to cut a torn tail. */
    private boolean readOnly;

    private Chain(BranchName branch, Path ledgerDir, KeyRing keys, LedgerOptions options) {
        this.branch = branch;
        this.ledgerDir = ledgerDir;
        this.dir = Layout.chainDir(ledgerDir, branch);
        this.keys = keys;
        this.options = options;
        this.n = options.segmentLines();
        this.headSeq = 0;
        this.headHash = Integrity.GENESIS_PREV;
        this.activeSeg = 0;
        this.activeBuf = new byte[0];
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
        for (Map.Entry<Long, Path> e : segments.descendingMap().entrySet()) {
            long idx = e.getKey();
            Path file = e.getValue();
            byte[] bytes = Files.readAllBytes(file);
            int len = recoverTail(bytes, file, ledgerDir, notes, readOnly);
            if (len == 0) {
                continue; // an empty segment (created, then crashed before the first line): look further back
            }
            Event first = parseLine(bytes, 0, lineEnd(bytes, 0, len), file);
            if (first.seq() != idx * c.n + 1) {
                throw new IllegalStateException("segment " + file + " starts at seq " + first.seq() + " but segment "
                        + idx + " of " + c.n + "-line segments starts at " + (idx * c.n + 1)
                        + "; was the ledger written with another segmentLines?");
            }
            int lastStart = lastLineStart(bytes, len);
            Event last = parseLine(bytes, lastStart, len - 1, file);
            if ((last.seq() - 1) / c.n != idx) {
                throw new IllegalStateException(
                        "segment " + file + " ends at seq " + last.seq() + ", beyond its " + c.n + "-line range");
            }
            c.chainId = last.chain();
            c.headSeq = last.seq();
            c.headHash = last.integrity().lineHash();
            c.activeSeg = c.headSeq / c.n;
            if (c.activeSeg == idx) {
                c.activeBuf = Arrays.copyOf(bytes, Math.max(len, 1024));
                c.activeLen = len;
            }
            break;
        }
        if (c.activeBuf.length == 0) {
            c.activeBuf = new byte[1024];
        }
        return c;
    }

    /** Cuts a torn final line; returns the length to keep (truncating the file if shorter). */
    private static int recoverTail(byte[] bytes, Path file, Path ledgerDir, List<String> notes, boolean readOnly)
            throws IOException {
        int len = bytes.length;
        String rel = Layout.relative(ledgerDir, file);
        if (len > 0 && bytes[len - 1] != '\n') {
            int keep = lastNewline(bytes, len) + 1;
            notes.add(rel + ": dropped a torn final line (" + (len - keep) + " bytes without a trailing newline)");
            len = keep;
        }
        if (len > 0) {
            int start = lastLineStart(bytes, len);
            try {
                Event.fromJson(LineCodec.parse(bytes, start, len - 1 - start));
            } catch (IOException | IllegalArgumentException e) {
                notes.add(rel + ": dropped an unparseable final line (" + (len - start) + " bytes): " + e.getMessage());
                len = start;
            }
        }
        if (len != bytes.length && readOnly) {
            throw new IllegalStateException(notes.get(notes.size() - 1).replace("dropped", "has")
                    + "; a daemon stopped mid-write: 'memoryd serve' repairs it, checking commands change nothing");
        }
        if (len != bytes.length) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(len);
                ch.force(false);
            }
        }
        return len;
    }

    private static int lastNewline(byte[] b, int len) {
        for (int i = len - 1; i >= 0; i--) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** Start of the last line in {@code b[0, len)}, which ends with a newline. */
    private static int lastLineStart(byte[] b, int len) {
        return lastNewline(b, len - 1) + 1;
    }

    private static int lineEnd(byte[] b, int from, int len) {
        for (int i = from; i < len; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return len;
    }

    private static Event parseLine(byte[] b, int start, int end, Path file) {
        try {
            return Event.fromJson(LineCodec.parse(b, start, end - start));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("unreadable line in " + file + ": " + e.getMessage(), e);
        }
    }

    /** The branch this chain records. */
    /**
     * Signs lines appended from now on with {@code ring}'s current key (after a key rotation has
     * been recorded). The ring must hold every version the old one did.
     */
    public void useKeys(KeyRing ring) {
        if (!ring.versions().containsAll(keys.versions())) {
            throw new IllegalArgumentException("the new key ring lacks versions " + keys.versions());
        }
        this.keys = ring;
    }

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
        if (!preparedLines.isEmpty()) {
            throw new IllegalStateException("lines are prepared and not written; write or discard them first");
        }
        List<Event> events = prepare(drafts);
        writePrepared(); // nothing reported yet: dirtySegments() reports what this wrote
        return events;
    }

    /** Lines {@link #prepare} computed and {@link #writePrepared} has not written yet, in seq order. */
    private final List<byte[]> preparedLines = new ArrayList<>();

    private long preparedSeq;
    private String preparedHash;
    private String preparedChainId;
    private KeyRing keysBeforePrepare;
    /** How many prepared lines {@link #preparedSegments} has reported. */
    private int reportedPrepared;
    /** What {@link #preparedSegments} took from the dirty bookkeeping, given back by {@link #discardPrepared}. */
    private final Map<String, byte[]> dirtyTaken = new LinkedHashMap<>();

    private boolean activeDirtyTaken;

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
        if (preparedLines.isEmpty() && keysBeforePrepare == null) {
            preparedSeq = headSeq;
            preparedHash = headHash;
            preparedChainId = chainId;
            keysBeforePrepare = keys;
        }
        String id =
                preparedChainId != null ? preparedChainId : options.ids().next().value();
        int version = keys.current();
        Mac mac = macs.computeIfAbsent(version, keys::lineMac);
        List<Event> events = new ArrayList<>(drafts.size());
        List<byte[]> lines = new ArrayList<>(drafts.size());
        long seq = preparedSeq;
        String prev = preparedHash;
        for (EventDraft d : drafts) {
            seq++;
            Event unsigned = event(seq, id, d, new Integrity(prev, Integrity.GENESIS_PREV, Integrity.ALGO, version));
            String[] signed = LineCodec.signAndEncode(mac, unsigned);
            events.add(event(seq, id, d, new Integrity(prev, signed[0], Integrity.ALGO, version)));
            lines.add(signed[1].getBytes(StandardCharsets.UTF_8));
            prev = signed[0];
        }
        preparedLines.addAll(lines);
        preparedChainId = id;
        preparedSeq = seq;
        preparedHash = prev;
        return events;
    }

    /**
     * The full bytes each segment will have once everything prepared is written, for the segments
     * that the lines prepared since the last call touch (plus what {@link #dirtySegments} would
     * report): what the commit of those lines must hold.
     */
    public Map<String, byte[]> preparedSegments() {
        Map<String, byte[]> out = new LinkedHashMap<>(dirty);
        dirtyTaken.putAll(dirty);
        dirty.clear();
        java.util.TreeSet<Long> segs = new java.util.TreeSet<>();
        for (int i = reportedPrepared; i < preparedLines.size(); i++) {
            segs.add((headSeq + i) / n);
        }
        if (activeDirty) {
            segs.add(activeSeg);
            activeDirtyTaken = true;
            activeDirty = false;
        }
        for (long seg : segs) {
            // Sized first and filled once: the active segment can be megabytes when lines are large, and
            // growing a buffer to it copied those bytes several times per commit.
            int size = seg == activeSeg ? activeLen : 0;
            for (int i = 0; i < preparedLines.size(); i++) {
                if ((headSeq + i) / n == seg) {
                    size += preparedLines.get(i).length;
                }
            }
            byte[] b = new byte[size];
            int at = 0;
            if (seg == activeSeg) {
                System.arraycopy(activeBuf, 0, b, 0, activeLen);
                at = activeLen;
            }
            for (int i = 0; i < preparedLines.size(); i++) {
                if ((headSeq + i) / n == seg) {
                    byte[] line = preparedLines.get(i);
                    System.arraycopy(line, 0, b, at, line.length);
                    at += line.length;
                }
            }
            out.put(relPath(seg), b);
        }
        reportedPrepared = preparedLines.size();
        return out;
    }

    /** The segment files {@link #writePrepared} will append to, as repository paths. */
    public java.util.Set<String> preparedFiles() {
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        for (int i = 0; i < preparedLines.size(); i++) {
            out.add(relPath((headSeq + i) / n));
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
        if (preparedLines.isEmpty()) {
            forgetPrepared();
            return;
        }
        try {
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            long batchSeg = headSeq / n;
            for (int i = 0; i < preparedLines.size(); i++) {
                long seg = (headSeq + i) / n;
                if (seg != batchSeg) {
                    write(batchSeg, batch.toByteArray());
                    batch.reset();
                    batchSeg = seg;
                }
                batch.writeBytes(preparedLines.get(i));
            }
            write(batchSeg, batch.toByteArray());
        } catch (IOException e) {
            broken = true;
            throw new UncheckedIOException("cannot append to the ledger of branch " + branch, e);
        }
        chainId = preparedChainId;
        headSeq = preparedSeq;
        headHash = preparedHash;
        boolean allReported = reportedPrepared == preparedLines.size();
        forgetPrepared();
        if (allReported) {
            dirty.clear();
            activeDirty = false;
        }
    }

    /**
     * Forces every prepared line to {@code journal} (replacing what it held), so that
     * {@link #writePrepared} may write them without waiting for the disk: {@link #sync} is then
     * the durability point of the segment, and the journal stands in until it returns.
     */
    public void journalPrepared(Journal journal) throws IOException {
        ensureUsable();
        journal.write(branch, headSeq, headHash, preparedLines);
    }

    /**
     * Appends and forces the lines {@code entry} holds when this chain still ends where the
     * journal began (a writer stopped between forcing its journal and its segment); returns how
     * many lines were appended. 0 when the chain already holds them or has moved on: the
     * journal is stale.
     *
     * @throws IllegalStateException if a line does not verify or does not follow its predecessor
     *     (nothing is appended then)
     */
    public int applyJournal(Journal.Entry entry) {
        ensureUsable();
        if (!entry.branch().equals(branch)
                || entry.lines().isEmpty()
                || headSeq != entry.baseSeq()
                || !headHash.equals(entry.baseHash())
                || !preparedLines.isEmpty()) {
            return 0;
        }
        long seq = headSeq;
        String prev = headHash;
        String id = chainId;
        for (byte[] line : entry.lines()) {
            Event e = parseLine(line, 0, line.length - 1, dir);
            seq++;
            if (e.seq() != seq
                    || !e.integrity().prev().equals(prev)
                    || (id != null && !id.equals(e.chain()))
                    || !LineCodec.verify(
                            macs.computeIfAbsent(e.integrity().saltVersion(), keys::lineMac),
                            line,
                            0,
                            line.length - 1,
                            e)) {
                throw new IllegalStateException("the journal's line for seq " + seq + " of branch " + branch
                        + " does not verify against the chain; nothing of it was appended");
            }
            prev = e.integrity().lineHash();
            id = e.chain();
        }
        keysBeforePrepare = keys;
        preparedLines.addAll(entry.lines());
        preparedSeq = seq;
        preparedHash = prev;
        preparedChainId = id;
        writePrepared();
        sync();
        return entry.lines().size();
    }

    /** Forgets what was prepared and not written; signs with the keys used before it again. */
    public void discardPrepared() {
        if (keysBeforePrepare != null) {
            keys = keysBeforePrepare;
        }
        dirtyTaken.forEach(dirty::putIfAbsent);
        activeDirty |= activeDirtyTaken;
        forgetPrepared();
    }

    private void forgetPrepared() {
        preparedLines.clear();
        keysBeforePrepare = null;
        reportedPrepared = 0;
        dirtyTaken.clear();
        activeDirtyTaken = false;
    }

    private static Event event(long seq, String chain, EventDraft d, Integrity integrity) {
        return new Event(
                seq,
                d.eventId(),
                d.ts(),
                d.branch(),
                chain,
                d.actor(),
                d.userId(),
                d.entityType(),
                d.entityId(),
                d.filePath(),
                d.op(),
                d.sectionAnchor(),
                d.beforeHash(),
                d.afterHash(),
                d.payload(),
                d.rationale(),
                d.evidenceRefs(),
                d.idempotencyKey(),
                d.toolCallId(),
                integrity);
    }

    private void write(long seg, byte[] bytes) throws IOException {
        if (bytes.length == 0) {
            return;
        }
        if (seg != activeSeg) {
            retireActive();
            activeSeg = seg;
            activeLen = 0;
        }
        if (activeCh != null && replacedUnderUs()) {
            restoreActive();
        }
        if (activeCh == null) {
            activeCh = openSegment(seg);
            activeKey = fileKey(Layout.segmentFile(dir, seg));
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        long pos = activeLen;
        while (buf.hasRemaining()) {
            pos += activeCh.write(buf, pos); // positional write: the file's end is exactly activeLen
        }
        if (activeLen + bytes.length > activeBuf.length) {
            activeBuf = Arrays.copyOf(activeBuf, Math.max(activeBuf.length * 2, activeLen + bytes.length));
        }
        System.arraycopy(bytes, 0, activeBuf, activeLen, bytes.length);
        activeLen += bytes.length;
        activeUnsynced = true;
        activeDirty = true;
        activeStamp = stamp(Layout.segmentFile(dir, activeSeg));
    }

    private static Object[] stamp(Path file) throws IOException {
        try {
            java.nio.file.attribute.BasicFileAttributes a = Files.readAttributes(
                    file, java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
            return new Object[] {a.fileKey(), a.size(), a.lastModifiedTime()};
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        }
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
        Path file = Layout.segmentFile(dir, activeSeg);
        Object[] now = stamp(file);
        if (now == null) {
            return activeLen == 0 ? DiskState.INTACT : DiskState.OLDER;
        }
        if (activeStamp != null && Arrays.equals(now, activeStamp)) {
            return DiskState.INTACT;
        }
        byte[] there = Files.readAllBytes(file);
        int common = (int) Math.min(there.length, activeLen);
        if (!Arrays.equals(there, 0, common, activeBuf, 0, common) || there.length > activeLen) {
            return DiskState.ALTERED;
        }
        if (there.length < activeLen) {
            return DiskState.OLDER;
        }
        activeStamp = now;
        return DiskState.INTACT;
    }

    /**
     * The seq of the first line of the active segment whose bytes on disk differ from this
     * chain's (for messages), or -1 when none does.
     */
    public long firstAlteredSeq() throws IOException {
        Path file = Layout.segmentFile(dir, activeSeg);
        byte[] there = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
        long seq = activeSeg * n + 1;
        for (int i = 0; i < Math.max(there.length, activeLen); i++) {
            if (i >= there.length || i >= activeLen || there[i] != activeBuf[i]) {
                return seq;
            }
            if (activeBuf[i] == '\n') {
                seq++;
            }
        }
        return -1;
    }

    /** The active segment's path relative to the memory root. */
    public String activeSegmentPath() {
        return relPath(activeSeg);
    }

    /**
     * Puts this chain's bytes back in the active segment's file (temp file, fsync, rename) after a
     * git command wrote an older version of it there ({@link DiskState#OLDER}).
     */
    public void restoreOlderActive() throws IOException {
        if (activeOnDisk() != DiskState.OLDER) {
            throw new IllegalStateException("the active segment is not an older version of this chain's");
        }
        restoreActive();
    }

    /**
     * Puts this chain's bytes back over an active segment file that was changed by hand
     * ({@link DiskState#ALTERED}), after keeping a copy of what was there in {@code keep}.
     */
    public void restoreAlteredActive(Path keep) throws IOException {
        Path file = Layout.segmentFile(dir, activeSeg);
        Files.createDirectories(keep.getParent());
        Files.copy(file, keep, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.write(file, new byte[0]); // an empty file is a prefix: restoreActive may now overwrite it
        restoreActive();
    }

    /** Hands the finished active segment to sync/dirty bookkeeping before moving to the next. */
    private void retireActive() throws IOException {
        if (activeDirty) {
            dirty.put(relPath(activeSeg), Arrays.copyOf(activeBuf, activeLen));
            activeDirty = false;
        }
        if (activeCh != null) {
            if (activeUnsynced) {
                unsynced.add(activeCh);
            } else {
                activeCh.close();
            }
        }
        activeCh = null;
        activeKey = null;
        activeUnsynced = false;
    }

    private static Object fileKey(Path file) throws IOException {
        try {
            return Files.readAttributes(
                            file,
                            java.nio.file.attribute.BasicFileAttributes.class,
                            java.nio.file.LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        }
    }

    /** Whether the active segment's path no longer names the file this chain has open. */
    private boolean replacedUnderUs() throws IOException {
        Object now = fileKey(Layout.segmentFile(dir, activeSeg));
        return activeKey == null || !activeKey.equals(now);
    }

    /**
     * The active segment's file was replaced (a {@code git checkout} or {@code reset} rewrites
     * tracked files, and the ledger is tracked): appending through the old handle would write to
     * a file no one can see. The chain's own bytes are the truth; what is at the path now is put
     * back to them (temp file, fsync, rename) when it is a prefix of them (an older version of the
     * segment, or nothing). Anything else is not this chain's writing and is not overwritten.
     */
    private void restoreActive() throws IOException {
        Path file = Layout.segmentFile(dir, activeSeg);
        byte[] there = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
        if (there.length > activeLen || !Arrays.equals(there, 0, there.length, activeBuf, 0, there.length)) {
            throw new IllegalStateException("ledger segment " + file + " was replaced by something that is not"
                    + " a version of what this chain wrote; refusing to overwrite it");
        }
        if (activeCh != null) {
            if (activeUnsynced) {
                activeCh.force(false); // what the old handle holds is made durable before it is let go
                activeUnsynced = false;
            }
            activeCh.close();
            activeCh = null;
        }
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".restore");
        try (FileChannel ch = FileChannel.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(activeBuf, 0, activeLen);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(
                tmp,
                file,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        dirsToSync.add(file.getParent());
        restoredSegments++;
        activeStamp = stamp(file);
    }

    /** How many times the active segment was put back after something replaced its file. */
    public long restoredSegments() {
        return restoredSegments;
    }

    private FileChannel openSegment(long seg) throws IOException {
        Path file = Layout.segmentFile(dir, seg);
        Path parent = file.getParent();
        if (!Files.isDirectory(parent)) {
            // Remember the parent of every directory we create: its entry must be made durable too.
            List<Path> missing = new ArrayList<>();
            for (Path p = parent; !Files.isDirectory(p); p = p.getParent()) {
                missing.add(p);
            }
            for (int i = missing.size() - 1; i >= 0; i--) {
                Files.createDirectories(missing.get(i));
                dirsToSync.add(missing.get(i).getParent());
            }
        }
        boolean existed = Files.exists(file);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        if (!existed) {
            dirsToSync.add(parent);
        }
        long size = ch.size();
        if (size != activeLen) {
            ch.close();
            throw new IllegalStateException("segment " + file + " has " + size + " bytes but the chain expects "
                    + activeLen + "; refusing to overwrite");
        }
        return ch;
    }

    /**
     * The durability point: forces every segment file written since the last sync
     * ({@code force(false)}) and every directory that gained or lost an entry.
     */
    public void sync() {
        try {
            for (FileChannel ch : unsynced) {
                ch.force(false);
                ch.close();
            }
            unsynced.clear();
            if (activeUnsynced && activeCh != null) {
                activeCh.force(false);
                activeUnsynced = false;
            }
            for (Path d : dirsToSync) {
                Layout.fsyncDir(d);
            }
            dirsToSync.clear();
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
        Map<String, byte[]> out = new LinkedHashMap<>(dirty);
        if (activeDirty) {
            out.put(relPath(activeSeg), Arrays.copyOf(activeBuf, activeLen));
            activeDirty = false;
        }
        dirty.clear();
        return out;
    }

    /** Path, relative to the memory root, of the segment holding line {@code seq}. */
    public String segmentPath(long seq) {
        return relPath((seq - 1) / n);
    }

    /** The seq of the first line of the segment at {@code relPath} (as given by {@link #segmentPath}). */
    public long firstSeqOf(String relPath) {
        String name = relPath.substring(relPath.lastIndexOf('/') + 1, relPath.length() - ".ndjson".length());
        return Long.parseLong(name) * n + 1;
    }

    /** Path of segment {@code seg} relative to the memory root. */
    String relPath(long seg) {
        // Asked for the active segment once per declaration; formatting and relativizing the
        // path each time showed in the writer's profile.
        Object[] c = relPathCache;
        if (c != null && (Long) c[0] == seg) {
            return (String) c[1];
        }
        String rel = Layout.relative(ledgerDir, Layout.segmentFile(dir, seg));
        relPathCache = new Object[] {seg, rel};
        return rel;
    }

    /** The last {@link #relPath} answer: segment index and path (one array, so readers on other threads see a pair). */
    private volatile Object[] relPathCache;

    /**
     * Events with {@code seq >= fromSeq} up to the head at the time of this call, in order,
     * read lazily segment by segment. Must not be interleaved with {@link #truncateAfter}.
     */
    public Iterator<Event> read(long fromSeq) {
        final long end = headSeq;
        final long start = Math.max(1, fromSeq);
        return new Iterator<>() {
            private long nextSeg = (start - 1) / n;
            private final List<Event> buffered = new ArrayList<>();
            private int pos;
            private long expect = start;

            @Override
            public boolean hasNext() {
                while (pos >= buffered.size() && expect <= end) {
                    loadSegment(nextSeg++);
                }
                return pos < buffered.size();
            }

            @Override
            public Event next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Event e = buffered.get(pos++);
                expect = e.seq() + 1;
                return e;
            }

            private void loadSegment(long seg) {
                buffered.clear();
                pos = 0;
                Path file = Layout.segmentFile(dir, seg);
                byte[] bytes;
                int len;
                if (seg == activeSeg) {
                    bytes = activeBuf;
                    len = activeLen;
                } else {
                    try {
                        bytes = Files.readAllBytes(file);
                    } catch (NoSuchFileException e) {
                        throw new IllegalStateException("ledger segment missing: " + file, e);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    len = bytes.length;
                }
                int off = 0;
                while (off < len) {
                    int nl = lineEnd(bytes, off, len);
                    Event e = parseLine(bytes, off, nl, file);
                    if (e.seq() >= expect && e.seq() <= end) {
                        buffered.add(e);
                    }
                    off = nl + 1;
                }
                if (buffered.isEmpty() && expect <= end) {
                    throw new IllegalStateException("ledger segment " + file + " lacks seq " + expect);
                }
            }
        };
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
            closeChannels();
            long keepSeg = seq == 0 ? -1 : (seq - 1) / n;
            long lastSeg = Math.max((headSeq - 1) / n, activeSeg);
            for (long s = lastSeg; s > keepSeg; s--) {
                Path f = Layout.segmentFile(dir, s);
                if (Files.deleteIfExists(f)) {
                    dirsToSync.add(f.getParent());
                }
                dirty.remove(relPath(s));
            }
            if (keepSeg < 0) {
                headSeq = 0;
                headHash = Integrity.GENESIS_PREV;
                activeSeg = 0;
                activeLen = 0;
                activeDirty = false;
            } else {
                Path f = Layout.segmentFile(dir, keepSeg);
                byte[] bytes = Files.readAllBytes(f);
                long wantLines = seq - keepSeg * n;
                int off = 0;
                int lineStart = 0;
                for (long i = 0; i < wantLines; i++) {
                    lineStart = off;
                    int nl = lineEnd(bytes, off, bytes.length);
                    if (nl >= bytes.length) {
                        throw new IllegalStateException("segment " + f + " has fewer lines than seq " + seq + " needs");
                    }
                    off = nl + 1;
                }
                Event last = parseLine(bytes, lineStart, off - 1, f);
                if (last.seq() != seq) {
                    throw new IllegalStateException(
                            "segment " + f + " holds seq " + last.seq() + " where " + seq + " belongs");
                }
                if (off < bytes.length) {
                    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                        ch.truncate(off);
                        ch.force(false);
                    }
                }
                headSeq = seq;
                headHash = last.integrity().lineHash();
                activeSeg = seq / n;
                if (activeSeg == keepSeg) {
                    activeBuf = Arrays.copyOf(bytes, Math.max(off, 1024));
                    activeLen = off;
                    activeDirty = true; // its bytes changed; report them so Git and disk agree
                } else {
                    activeLen = 0;
                    activeDirty = false;
                }
            }
            for (Path d : dirsToSync) {
                Layout.fsyncDir(d);
            }
            dirsToSync.clear();
            broken = false; // disk and memory agree again
            activeStamp = null;
        } catch (IOException e) {
            broken = true;
            throw new UncheckedIOException("cannot truncate the ledger of branch " + branch, e);
        }
    }

    private void closeChannels() throws IOException {
        for (FileChannel ch : unsynced) {
            ch.close();
        }
        unsynced.clear();
        if (activeCh != null) {
            activeCh.close();
            activeCh = null;
        }
        activeUnsynced = false;
    }

    /** Syncs and releases file handles. */
    void close() {
        try {
            if (!broken) {
                sync();
            }
            closeChannels();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void ensureUsable() {
        if (readOnly) {
            throw new IllegalStateException("the ledger chain of branch " + branch + " was opened read-only");
        }
        if (broken) {
            throw new IllegalStateException(
                    "the ledger chain of branch " + branch + " failed an earlier write; reopen the ledger to recover");
        }
    }
}
