package dev.memoryd.daemon;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The temp files a {@link WorkTree} writes a file's next version to, and their renaming into
 * place. With a spare directory, temp files are spare inodes from a pool there: the inode a
 * rename replaces is linked into the pool and becomes the next spare, so replacing a file
 * allocates and frees no inode. Without one, temp files are made beside their targets.
 *
 * <p><b>Thread-safety:</b> the pool is a concurrent queue; takes, returns and renames may run on
 * several threads at once. A spare is never a name of a live file: one whose link count says
 * otherwise is dropped rather than truncated, and {@link #clear} empties the pool at start.
 */
final class SparePool {
    private final Path root;
    /** Where spare inodes wait (see {@link #replace}); null: temp files beside their targets. */
    private final Path spareDir;

    private final ConcurrentLinkedQueue<Path> spares = new ConcurrentLinkedQueue<>();
    private final AtomicLong spareSeq = new AtomicLong();
    private volatile boolean spareDirMade;

    /** A pool in {@code spareDir} (null: none) for the files under {@code root}. */
    SparePool(Path root, Path spareDir) {
        this.root = root;
        this.spareDir = spareDir;
    }

    /** Links {@code target}'s inode into the spare pool ahead of its replacement; null when there is no pool or no file. */
    Path linkSpare(Path target) throws IOException {
        if (spareDir == null || !Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        if (!spareDirMade) {
            Files.createDirectories(spareDir);
            spareDirMade = true;
        }
        Path k = newSpareName();
        try {
            Files.createLink(k, target);
            return k;
        } catch (UnsupportedOperationException | FileSystemException e) {
            return null; // no hard links here: the replaced inode is simply freed
        }
    }

    /**
     * The temp file {@code target}'s next version is written to: a spare inode from the pool when
     * there is one. A spare is never a name of a live file (see {@link #replace}); one whose link
     * count says otherwise, whatever made it so, is dropped rather than truncated.
     */
    Path takeSpare(Path target) throws IOException {
        if (spareDir == null) {
            Path tmp = target.resolveSibling("." + target.getFileName() + WorkTree.TMP_SUFFIX);
            if (Files.exists(tmp, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(tmp, LinkOption.NOFOLLOW_LINKS)) {
                Files.delete(tmp); // never write through a link someone put in the temp file's place
            }
            return tmp;
        }
        if (!spareDirMade) {
            Files.createDirectories(spareDir);
            spareDirMade = true;
        }
        for (Path p; (p = spares.poll()) != null; ) {
            Object links;
            try {
                links = Files.getAttribute(p, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException gone) {
                continue;
            } catch (UnsupportedOperationException | IllegalArgumentException noLinkCount) {
                links = null; // cannot tell whether it still names a file: never reuse it
            }
            if (links instanceof Integer n && n == 1 && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                return p;
            }
            Files.deleteIfExists(p);
        }
        // The state directory may have been removed while memoryd runs (a `git clean -fdx`).
        dev.memoryd.daemon.layout.PrivateDir.ensure(spareDir);
        return newSpareName();
    }

    private Path newSpareName() {
        return spareDir.resolve(spareSeq.incrementAndGet() + WorkTree.TMP_SUFFIX);
    }

    /** A temp file that was not renamed into place: back to the pool, or removed. */
    void giveBack(Path tmp) throws IOException {
        if (spareDir != null && tmp.startsWith(spareDir)) {
            if (Files.isRegularFile(tmp, LinkOption.NOFOLLOW_LINKS)) {
                spares.add(tmp);
            }
        } else {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Renames {@code tmp} over {@code target} atomically. With a spare pool, the replaced inode is
     * linked into the pool first and becomes the next spare: a plain rename over the target frees
     * an inode and the next temp file allocates one, and on ext4 without a journal (this project's
     * machines) allocation scans past every inode freed in the last ~30 s, so under a steady write
     * load each new temp file cost more CPU than the rest of its write. A spare holds an old
     * version until its next use truncates it, in the 0700 state directory; the pool is emptied at
     * start (a kill between the link and the rename leaves a spare that is still a name of the
     * target, which must never be truncated).
     */
    void replace(Path tmp, Path target, Path linkedAhead) throws IOException {
        Path keep = linkedAhead;
        if (keep == null && spareDir != null && Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
            Path k = newSpareName();
            try {
                Files.createLink(k, target);
                keep = k;
            } catch (UnsupportedOperationException | FileSystemException e) {
                keep = null; // no hard links here: the replaced inode is simply freed
            }
        }
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            if (keep != null) {
                Files.deleteIfExists(keep); // still a name of the target: never a spare
            }
            if (e instanceof AtomicMoveNotSupportedException) {
                throw new IOException("the file system of " + root + " cannot rename atomically", e);
            }
            throw e;
        }
        if (keep != null) {
            spares.add(keep);
        }
    }

    /**
     * Empties the pool and removes the spares in the spare directory (a name only: a target a kill
     * left linked here keeps its own).
     */
    void clear() throws IOException {
        spares.clear();
        if (spareDir != null && Files.isDirectory(spareDir, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> s = Files.list(spareDir)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Files.deleteIfExists(p); // unlinks a name only: a target a kill left linked here keeps its own
                }
            }
        }
    }
}
