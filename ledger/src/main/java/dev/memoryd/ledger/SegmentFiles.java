package dev.memoryd.ledger;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The segment files of one chain as the chain writes them: the {@link ActiveSegment}, the
 * segments left behind by rollover and the directories still to be forced, the segments touched
 * since they were last reported, and cutting lines off the end.
 *
 * <p><b>Thread-safety:</b> owned by one {@link Chain}, whose caller serializes every call; only
 * {@link #relPath}'s cache is read safely from other threads.
 *
 * <p><b>Durability:</b> {@link #write} appends without fsync; {@link #sync} forces every segment
 * written and every directory that gained or lost an entry since the last sync. {@link #cutAfter}
 * forces the file it truncates; {@link #finishCut} the directories it changed.
 *
 * <p><b>Ordering:</b> segments are reported in the order they were touched, the active one last.
 */
final class SegmentFiles {
    private final Path ledgerDir;
    private final Path dir;
    private final int n;

    /** Directories that gained or lost an entry since the last sync. */
    private final Set<Path> dirsToSync = new LinkedHashSet<>();

    private final ActiveSegment active;
    /** Channels of segments left behind by rollover, still to be forced by {@link #sync}. */
    private final List<FileChannel> unsynced = new ArrayList<>();
    /** Snapshots of finished segments touched since the last {@link #dirtySegments} call. */
    private final Map<String, byte[]> dirty = new LinkedHashMap<>();
    /** What {@link #takeWithLines} took from the dirty bookkeeping, given back by {@link #giveBackTaken}. */
    private final Map<String, byte[]> dirtyTaken = new LinkedHashMap<>();

    private boolean activeDirtyTaken;

    /** The last {@link #relPath} answer: segment index and path (one array, so readers on other threads see a pair). */
    private volatile Object[] relPathCache;

    SegmentFiles(Path ledgerDir, Path dir, int segmentLines) {
        this.ledgerDir = ledgerDir;
        this.dir = dir;
        this.n = segmentLines;
        this.active = new ActiveSegment(dir, segmentLines, dirsToSync);
    }

    ActiveSegment active() {
        return active;
    }

    /** Appends {@code bytes} at the end of segment {@code seg} (the active one or the next). */
    void write(long seg, byte[] bytes) throws IOException {
        if (bytes.length == 0) {
            return;
        }
        if (seg != active.index()) {
            retireActive();
            active.moveTo(seg);
        }
        active.append(bytes);
    }

    /** Hands the finished active segment to sync/dirty bookkeeping before moving to the next. */
    private void retireActive() throws IOException {
        if (active.dirty()) {
            dirty.put(relPath(active.index()), active.copy());
            active.dirty(false);
        }
        FileChannel left = active.release();
        if (left != null) {
            unsynced.add(left);
        }
    }

    /** Forces every segment written since the last sync and every directory that changed. */
    void sync() throws IOException {
        for (FileChannel ch : unsynced) {
            ch.force(false);
            ch.close();
        }
        unsynced.clear();
        active.force();
        syncDirs();
    }

    /**
     * What {@link #sync} would force, taken out of this bookkeeping so that another thread can
     * force it while appends go on: a segment left behind by rollover is closed by the returned
     * task, the active one only forced (see {@link ActiveSegment#detachForce}).
     */
    Chain.Force detachSync() {
        List<FileChannel> left = List.copyOf(unsynced);
        unsynced.clear();
        FileChannel activeCh = active.detachForce();
        List<Path> dirs = List.copyOf(dirsToSync);
        dirsToSync.clear();
        return () -> {
            for (FileChannel ch : left) {
                ch.force(false);
                ch.close();
            }
            if (activeCh != null) {
                activeCh.force(false);
            }
            for (Path d : dirs) {
                Layout.fsyncDir(d);
            }
        };
    }

    private void syncDirs() throws IOException {
        for (Path d : dirsToSync) {
            Layout.fsyncDir(d);
        }
        dirsToSync.clear();
    }

    /** As {@link Chain#dirtySegments}. */
    Map<String, byte[]> dirtySegments() {
        Map<String, byte[]> out = new LinkedHashMap<>(dirty);
        if (active.dirty()) {
            out.put(relPath(active.index()), active.copy());
            active.dirty(false);
        }
        dirty.clear();
        return out;
    }

    /** Forgets what {@link #dirtySegments} would report: a commit already holds it. */
    void forgetDirty() {
        dirty.clear();
        active.dirty(false);
    }

    /**
     * The full bytes each segment will have once {@code lines} (the lines after seq
     * {@code headSeq}) are written, for the segments that {@code lines[from..]} touch, plus what
     * {@link #dirtySegments} would report, which is taken from it until {@link #giveBackTaken}.
     */
    Map<String, byte[]> takeWithLines(long headSeq, List<byte[]> lines, int from) {
        Map<String, byte[]> out = new LinkedHashMap<>(dirty);
        dirtyTaken.putAll(dirty);
        dirty.clear();
        TreeSet<Long> segs = new TreeSet<>();
        for (int i = from; i < lines.size(); i++) {
            segs.add((headSeq + i) / n);
        }
        long activeSeg = active.index();
        if (active.dirty()) {
            segs.add(activeSeg);
            activeDirtyTaken = true;
            active.dirty(false);
        }
        for (long seg : segs) {
            // Sized first and filled once: the active segment can be megabytes when lines are large, and
            // growing a buffer to it copied those bytes several times per commit.
            int size = seg == activeSeg ? active.len() : 0;
            // The lines of this segment are a run of the list: those whose sequence lies in it.
            int lo = (int) Math.max(0, seg * n - headSeq);
            int hi = (int) Math.min(lines.size(), (seg + 1) * n - headSeq);
            for (int i = lo; i < hi; i++) {
                size += lines.get(i).length;
            }
            byte[] b = new byte[size];
            int at = 0;
            if (seg == activeSeg) {
                System.arraycopy(active.buf(), 0, b, 0, active.len());
                at = active.len();
            }
            for (int i = lo; i < hi; i++) {
                byte[] line = lines.get(i);
                System.arraycopy(line, 0, b, at, line.length);
                at += line.length;
            }
            out.put(relPath(seg), b);
        }
        return out;
    }

    /** Gives back to the dirty bookkeeping what {@link #takeWithLines} took. */
    void giveBackTaken() {
        dirtyTaken.forEach(dirty::putIfAbsent);
        if (activeDirtyTaken) {
            active.dirty(true);
        }
    }

    /** Forgets what {@link #takeWithLines} took. */
    void forgetTaken() {
        dirtyTaken.clear();
        activeDirtyTaken = false;
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

    /**
     * Drops every line after {@code seq} from the files (the chain's head is {@code headSeq}):
     * deletes the segments past the one holding {@code seq} and truncates that one. Returns the
     * event at {@code seq}, or null when {@code seq} is 0. Directories are forced by
     * {@link #finishCut}.
     */
    Event cutAfter(long seq, long headSeq) throws IOException {
        closeChannels();
        long keepSeg = seq == 0 ? -1 : (seq - 1) / n;
        long lastSeg = Math.max((headSeq - 1) / n, active.index());
        for (long s = lastSeg; s > keepSeg; s--) {
            Path f = Layout.segmentFile(dir, s);
            if (Files.deleteIfExists(f)) {
                dirsToSync.add(f.getParent());
            }
            dirty.remove(relPath(s));
        }
        if (keepSeg < 0) {
            active.moveTo(0);
            active.dirty(false);
            return null;
        }
        Path f = Layout.segmentFile(dir, keepSeg);
        byte[] bytes = Files.readAllBytes(f);
        long wantLines = seq - keepSeg * n;
        int off = 0;
        int lineStart = 0;
        for (long i = 0; i < wantLines; i++) {
            lineStart = off;
            int nl = SegmentLines.lineEnd(bytes, off, bytes.length);
            if (nl >= bytes.length) {
                throw new IllegalStateException("segment " + f + " has fewer lines than seq " + seq + " needs");
            }
            off = nl + 1;
        }
        Event last = SegmentLines.parseLine(bytes, lineStart, off - 1, f);
        if (last.seq() != seq) {
            throw new IllegalStateException("segment " + f + " holds seq " + last.seq() + " where " + seq + " belongs");
        }
        if (off < bytes.length) {
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                ch.truncate(off);
                ch.force(false);
            }
        }
        if (seq / n == keepSeg) {
            active.resume(keepSeg, Arrays.copyOf(bytes, Math.max(off, 1024)), off);
            active.dirty(true); // its bytes changed; report them so Git and disk agree
        } else {
            active.moveTo(seq / n);
            active.dirty(false);
        }
        return last;
    }

    /** Forces the directories {@link #cutAfter} changed; disk and memory agree again. */
    void finishCut() throws IOException {
        syncDirs();
        active.forgetStamp();
    }

    /** Closes every channel without forcing it. */
    void closeChannels() throws IOException {
        for (FileChannel ch : unsynced) {
            ch.close();
        }
        unsynced.clear();
        active.close();
    }
}
