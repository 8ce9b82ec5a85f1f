package dev.memoryd.ledger;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The segment a chain appends to: its bytes, kept in memory as the truth about what the chain
 * wrote, its open channel, and the checks of its file on disk against those bytes (a git command
 * may replace the file with an older version of it, or a hand may change it).
 *
 * <p><b>Thread-safety:</b> owned by one {@link Chain} through its {@link SegmentFiles}, whose
 * caller serializes every call.
 *
 * <p><b>Durability:</b> {@link #append} writes without fsync; {@link #force} forces what it wrote.
 * A file put back ({@link #restoreOlder}, {@link #restoreAltered}) is written to a temp file,
 * forced and renamed into place; the directories that gain an entry are added to the set given
 * at construction, for the owner to force.
 */
final class ActiveSegment {
    private final Path dir;
    private final int n;
    private final Set<Path> dirsToSync;

    private long seg;
    private byte[] buf = new byte[0];
    private int len;
    private FileChannel ch;
    /** The file key (inode) {@link #ch} was opened on: a git checkout or reset replaces the file. */
    private Object key;
    /** The file's inode, size and mtime when it last held exactly this chain's bytes. */
    private Object[] stamp;

    private long restored;
    private boolean unsynced;
    /** Whether the bytes changed since they were last reported. */
    private boolean dirty;

    ActiveSegment(Path dir, int segmentLines, Set<Path> dirsToSync) {
        this.dir = dir;
        this.n = segmentLines;
        this.dirsToSync = dirsToSync;
    }

    long index() {
        return seg;
    }

    byte[] buf() {
        return buf;
    }

    int len() {
        return len;
    }

    boolean dirty() {
        return dirty;
    }

    void dirty(boolean changed) {
        dirty = changed;
    }

    /** A copy of the bytes. */
    byte[] copy() {
        return Arrays.copyOf(buf, len);
    }

    /** Holds segment {@code index} with {@code bytes[0, length)}, as read from its file. */
    void resume(long index, byte[] bytes, int length) {
        seg = index;
        buf = bytes;
        len = length;
    }

    /** Moves to segment {@code index}, empty, keeping the buffer; the channel must be released. */
    void moveTo(long index) {
        seg = index;
        len = 0;
    }

    /**
     * Appends {@code bytes} to the file and to the bytes in memory, putting the file back first
     * when a git command replaced it with an older version.
     */
    void append(byte[] bytes) throws IOException {
        if (ch != null && replacedUnderUs()) {
            restore();
        }
        if (ch == null) {
            ch = open();
            key = fileKey(Layout.segmentFile(dir, seg));
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long pos = len;
        while (b.hasRemaining()) {
            pos += ch.write(b, pos); // positional write: the file's end is exactly len
        }
        if (len + bytes.length > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + bytes.length));
        }
        System.arraycopy(bytes, 0, buf, len, bytes.length);
        len += bytes.length;
        unsynced = true;
        dirty = true;
        stamp = stamp(Layout.segmentFile(dir, seg));
    }

    /** Forces what {@link #append} wrote since the last force. */
    void force() throws IOException {
        if (unsynced && ch != null) {
            ch.force(false);
            unsynced = false;
        }
    }

    /**
     * Hands the channel {@link #force} would force to the caller, who forces it (possibly on
     * another thread: a {@link FileChannel} may be forced while it is appended to); null when
     * nothing is to be forced. The channel stays this segment's: it must not be closed (by
     * {@link #release} or {@link #close}) before the caller's force returns.
     */
    FileChannel detachForce() {
        if (unsynced && ch != null) {
            unsynced = false;
            return ch;
        }
        return null;
    }

    /**
     * Lets go of the channel before moving to the next segment: returns it when it still has to be
     * forced, else closes it and returns null.
     */
    FileChannel release() throws IOException {
        FileChannel left = null;
        if (ch != null) {
            if (unsynced) {
                left = ch;
            } else {
                ch.close();
            }
        }
        ch = null;
        key = null;
        unsynced = false;
        return left;
    }

    /** Closes the channel without forcing it. */
    void close() throws IOException {
        if (ch != null) {
            ch.close();
            ch = null;
        }
        unsynced = false;
    }

    /** Forgets the file's last stamp: the next {@link #onDisk} compares its bytes. */
    void forgetStamp() {
        stamp = null;
    }

    /** As {@link Chain#activeOnDisk}. */
    Chain.DiskState onDisk() throws IOException {
        Path file = Layout.segmentFile(dir, seg);
        Object[] now = stamp(file);
        if (now == null) {
            return len == 0 ? Chain.DiskState.INTACT : Chain.DiskState.OLDER;
        }
        if (stamp != null && Arrays.equals(now, stamp)) {
            return Chain.DiskState.INTACT;
        }
        byte[] there = Files.readAllBytes(file);
        int common = (int) Math.min(there.length, len);
        if (!Arrays.equals(there, 0, common, buf, 0, common) || there.length > len) {
            return Chain.DiskState.ALTERED;
        }
        if (there.length < len) {
            return Chain.DiskState.OLDER;
        }
        stamp = now;
        return Chain.DiskState.INTACT;
    }

    /** As {@link Chain#firstAlteredSeq}. */
    long firstAlteredSeq() throws IOException {
        Path file = Layout.segmentFile(dir, seg);
        byte[] there = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
        long seq = seg * n + 1;
        for (int i = 0; i < Math.max(there.length, len); i++) {
            if (i >= there.length || i >= len || there[i] != buf[i]) {
                return seq;
            }
            if (buf[i] == '\n') {
                seq++;
            }
        }
        return -1;
    }

    /** As {@link Chain#restoreOlderActive}. */
    void restoreOlder() throws IOException {
        if (onDisk() != Chain.DiskState.OLDER) {
            throw new IllegalStateException("the active segment is not an older version of this chain's");
        }
        restore();
    }

    /** As {@link Chain#restoreAlteredActive}. */
    void restoreAltered(Path keep) throws IOException {
        Path file = Layout.segmentFile(dir, seg);
        Files.createDirectories(keep.getParent());
        Files.copy(file, keep, StandardCopyOption.REPLACE_EXISTING);
        restoreOverwriting();
    }

    /** As {@link Chain#restoreMergedActive}. */
    void restoreOverwriting() throws IOException {
        Files.write(
                Layout.segmentFile(dir, seg), new byte[0]); // an empty file is a prefix: restore may now overwrite it
        restore();
    }

    /** Whether {@code bytes} are this segment's bytes as they were at some length (a version of it). */
    boolean isVersion(byte[] bytes) {
        return bytes.length <= len && Arrays.equals(bytes, 0, bytes.length, buf, 0, bytes.length);
    }

    /** How many times the file was put back after something replaced it. */
    long restored() {
        return restored;
    }

    /**
     * The file was replaced (a {@code git checkout} or {@code reset} rewrites tracked files, and
     * the ledger is tracked): appending through the old handle would write to a file no one can
     * see. The chain's own bytes are the truth; what is at the path now is put back to them (temp
     * file, fsync, rename) when it is a prefix of them (an older version of the segment, or
     * nothing). Anything else is not this chain's writing and is not overwritten.
     */
    private void restore() throws IOException {
        Path file = Layout.segmentFile(dir, seg);
        byte[] there = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
        if (there.length > len || !Arrays.equals(there, 0, there.length, buf, 0, there.length)) {
            throw new IllegalStateException("ledger segment " + file + " was replaced by something that is not"
                    + " a version of what this chain wrote; refusing to overwrite it");
        }
        if (ch != null) {
            if (unsynced) {
                ch.force(false); // what the old handle holds is made durable before it is let go
                unsynced = false;
            }
            ch.close();
            ch = null;
        }
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".restore");
        try (FileChannel out = FileChannel.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(buf, 0, len);
            while (b.hasRemaining()) {
                out.write(b);
            }
            out.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        dirsToSync.add(file.getParent());
        restored++;
        stamp = stamp(file);
    }

    private FileChannel open() throws IOException {
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
        FileChannel opened = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        if (!existed) {
            dirsToSync.add(parent);
        }
        long size = opened.size();
        if (size != len) {
            opened.close();
            throw new IllegalStateException("segment " + file + " has " + size + " bytes but the chain expects " + len
                    + "; refusing to overwrite");
        }
        return opened;
    }

    /** Whether the path no longer names the file this chain has open. */
    private boolean replacedUnderUs() throws IOException {
        Object now = fileKey(Layout.segmentFile(dir, seg));
        return key == null || !key.equals(now);
    }

    private static Object[] stamp(Path file) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return new Object[] {a.fileKey(), a.size(), a.lastModifiedTime()};
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static Object fileKey(Path file) throws IOException {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
