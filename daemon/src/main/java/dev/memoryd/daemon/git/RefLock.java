package dev.memoryd.daemon.git;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import org.eclipse.jgit.lib.ObjectId;

/**
 * One branch ref's {@code <ref>.lock}, taken and written the way git does (create exclusively,
 * check the current value, write, rename), so git commands and memoryd's writer exclude each
 * other on it. {@link #hold} keeps the lock between batches' steps; {@link #swap} is the
 * compare-and-swap, with or without a held lock, and reports its outcome as a {@link RefMove}.
 * No reflog is written (the ledger and the commit chain are the history). One thread (the
 * writer).
 */
final class RefLock {
    private final Path refFile;
    private final Path lock;
    private final String ref;
    private FileChannel held;
    /** What {@link #prepare} wrote into {@link #held}; null when nothing was. */
    private ObjectId preparedTarget;
    /** Whether {@link #prepare} found the ref at {@link #checkedAt} under the held lock. */
    private boolean checked;

    private ObjectId checkedAt;
    /** The file key of a lock this store took and could not remove; removed by the next {@link #hold}. */
    private Object leftLock;

    RefLock(Path gitDir, String ref) {
        this.ref = ref;
        this.refFile = gitDir.resolve(ref);
        this.lock = refFile.resolveSibling(refFile.getFileName() + ".lock");
    }

    Path lockFile() {
        return lock;
    }

    /** The ref's value in its loose file, or null when there is none (then the ref database decides). */
    ObjectId looseValue() throws IOException {
        if (Files.exists(refFile)) {
            String v = Files.readString(refFile, StandardCharsets.US_ASCII).strip();
            if (ObjectId.isId(v)) {
                return ObjectId.fromString(v);
            }
        }
        return null;
    }

    /** See {@link GitStore#holdRef}. */
    boolean hold(long waitMs) throws IOException {
        if (held != null) {
            return true;
        }
        long deadline = System.nanoTime() + waitMs * 1_000_000;
        while (true) {
            try {
                removeLeftLock();
                preparedTarget = null;
                checked = false;
                checkedAt = null;
                held = FileChannel.open(lock, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                return true;
            } catch (NoSuchFileException e) {
                // Made only when missing: every batch takes this lock, and a mkdir that fails costs a stat too.
                if (Files.isDirectory(refFile.getParent())) {
                    throw e;
                }
                Files.createDirectories(refFile.getParent());
            } catch (FileAlreadyExistsException e) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting for " + lock);
                }
            }
        }
    }

    /** See {@link GitStore#releaseRef}. */
    void release() throws IOException {
        FileChannel h = held;
        if (h != null) {
            held = null;
            preparedTarget = null;
            checked = false;
            checkedAt = null;
            Object key = Files.readAttributes(lock, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
            h.close();
            try {
                Files.deleteIfExists(lock);
            } catch (IOException e) {
                // Say, the directory turned read-only or immutable meanwhile: the lock is ours, so it is
                // removed at the next try instead of being taken for another git command's.
                leftLock = key;
                throw e;
            }
        }
    }

    /**
     * See {@link GitStore#prepareRef}: the lock's bytes are written and forced and its channel
     * closed, and the ref's value read under the lock; the move then only renames.
     */
    void prepare(ObjectId expected, ObjectId target, IoSupplier<ObjectId> current) throws IOException {
        if (held == null || target == null) {
            return;
        }
        FileChannel ch = held.isOpen() ? held : FileChannel.open(lock, StandardOpenOption.WRITE);
        held = ch;
        write(ch, target);
        ch.force(false);
        ch.close();
        preparedTarget = target;
        ObjectId now = current.get();
        checkedAt = Objects.equals(now, expected) ? expected : null;
        checked = checkedAt != null || now == null && expected == null;
    }

    /**
     * Moves the ref from {@code expected} to {@code target} under the lock (the held one, else
     * taken here), consuming a held lock whatever happens. {@code current} reads the ref's value
     * under the lock.
     */
    RefMove swap(ObjectId expected, ObjectId target, IoSupplier<ObjectId> current) throws IOException {
        FileChannel h = held;
        boolean written = h != null && target.equals(preparedTarget);
        // The lock was held from the check on: no one who respects it moved the ref since.
        boolean stillChecked = written && checked && Objects.equals(checkedAt, expected);
        held = null; // consumed here, whatever happens
        preparedTarget = null;
        checked = false;
        checkedAt = null;
        if (h == null) {
            Files.createDirectories(refFile.getParent());
        }
        try (FileChannel ch = h == null
                ? FileChannel.open(lock, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
                : h.isOpen() || written ? h : FileChannel.open(lock, StandardOpenOption.WRITE)) {
            ObjectId now = stillChecked ? expected : current.get();
            if (!Objects.equals(now, expected)) {
                Files.deleteIfExists(lock);
                return new RefMove(RefMove.Result.MOVED_UNDER_US, ref, now, lock);
            }
            if (!written) {
                write(ch, target);
            }
        } catch (FileAlreadyExistsException e) {
            return new RefMove(RefMove.Result.LOCKED, ref, null, lock);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(lock);
            throw e;
        }
        try {
            Files.move(lock, refFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            try {
                leftLock = Files.readAttributes(lock, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                        .fileKey();
                Files.delete(lock);
                leftLock = null;
            } catch (IOException again) {
                e.addSuppressed(again); // removed by the next hold
            }
            throw e;
        }
        return new RefMove(RefMove.Result.MOVED, ref, target, lock);
    }

    /** A read that may fail with an IOException. */
    @FunctionalInterface
    interface IoSupplier<T> {
        T get() throws IOException;
    }

    private static void write(FileChannel ch, ObjectId target) throws IOException {
        ByteBuffer b = ByteBuffer.wrap((target.name() + "\n").getBytes(StandardCharsets.US_ASCII));
        long pos = 0;
        while (b.hasRemaining()) {
            pos += ch.write(b, pos);
        }
        ch.truncate(pos);
    }

    /** Removes the ref lock this store left behind, if it is still the same file. */
    private void removeLeftLock() throws IOException {
        Object key = leftLock;
        if (key == null) {
            return;
        }
        try {
            Object now = Files.readAttributes(lock, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
            if (key.equals(now)) {
                Files.delete(lock);
            }
            leftLock = null;
        } catch (NoSuchFileException e) {
            leftLock = null;
        }
    }
}
