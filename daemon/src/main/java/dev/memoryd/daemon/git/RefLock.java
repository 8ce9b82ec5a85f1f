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
 * No reflog is written (the ledger and the commit chain are the history). One thread at a time
 * (the writer, or a task it hands {@link #prepare} to and awaits).
 *
 * <p>The ref's file before a move is kept as a spare (a hard link under {@code
 * <git-dir>/memoryd/ref-spares/}) and becomes the next lock: on ext4 a rename that frees the
 * inode it replaces, and a create that allocates one, each cost hundreds of microseconds while
 * the journal commits other fsyncs, and the rename runs while git's index lock is held. A spare is
 * used only when it is not the ref's file itself (a move that did not happen leaves it so).
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
    /** A link to the ref's file as it was before the last move, reused as the next lock. */
    private final Path spare;
    /** Whether {@link #prepare} linked {@link #spare} to the ref's file for the move to come. */
    private boolean spareLinked;
    /** Whether the last move left {@link #spare} holding the file it replaced (no longer the ref's). */
    private boolean spareReady;

    RefLock(Path gitDir, String ref) {
        this.ref = ref;
        this.refFile = gitDir.resolve(ref);
        this.lock = refFile.resolveSibling(refFile.getFileName() + ".lock");
        this.spare = gitDir.resolve("memoryd").resolve("ref-spares").resolve(ref);
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
                spareLinked = false;
                held = lockFromSpare();
                if (held == null) {
                    held = FileChannel.open(lock, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                }
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

    /**
     * Takes the lock by linking the spare as it (as exclusive as git's create), or returns null
     * when there is no spare fit to be the lock: the caller creates it. Throws {@link
     * FileAlreadyExistsException} when the lock is held.
     */
    private FileChannel lockFromSpare() throws IOException {
        if (!spareReady) {
            return null;
        }
        try {
            Files.createLink(lock, spare);
        } catch (FileAlreadyExistsException held) {
            throw held; // a lock another command holds: the spare is kept for the next try
        } catch (IOException | UnsupportedOperationException e) {
            // Removed meanwhile, or a link refused: the lock is created as git creates it, which
            // fails, if at all, for the same reason a create would have.
            spareReady = false;
            return null;
        }
        spareReady = false;
        try {
            Object key = fileKey(lock);
            if (key == null || key.equals(fileKey(refFile))) {
                // Never the ref's own file: writing the lock would change the ref in place.
                Files.delete(lock);
                return null;
            }
            Files.deleteIfExists(spare);
            // Taken now, as a created lock would be: a lock's age is how a stale one is told.
            Files.setLastModifiedTime(lock, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()));
            return FileChannel.open(lock, StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(lock);
            } catch (IOException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
    }

    private static Object fileKey(Path p) throws IOException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /**
     * Links the ref's file as the spare ahead of the move, out of git's index lock, so that the
     * move's rename frees no inode. Only an optimisation: a failure leaves the move as it was.
     */
    private void linkSpare() {
        try {
            try {
                Files.createLink(spare, refFile);
            } catch (FileAlreadyExistsException e) {
                Files.delete(spare); // the file before the move before: this one's is kept instead
                Files.createLink(spare, refFile);
            } catch (NoSuchFileException e) {
                if (!Files.exists(refFile, LinkOption.NOFOLLOW_LINKS)) {
                    return; // the ref lives in packed-refs (or nowhere yet): no file to keep
                }
                Files.createDirectories(spare.getParent());
                Files.createLink(spare, refFile);
            }
            spareLinked = true;
        } catch (IOException | UnsupportedOperationException e) {
            spareLinked = false;
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
        linkSpare();
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
        boolean keptBefore = written && spareLinked;
        spareLinked = false;
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
        spareReady = keptBefore; // the spare now holds the file this rename replaced, and no ref
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
        if (key.equals(fileKey(lock))) {
            Files.deleteIfExists(lock); // gone meanwhile: as good as removed
        }
        leftLock = null;
    }
}
