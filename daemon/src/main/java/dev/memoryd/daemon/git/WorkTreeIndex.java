package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;

/**
 * The working tree's index ({@code .git/index}) as memoryd keeps it in step with the branch. It
 * is locked the way git locks it ({@code index.lock}, created exclusively), so a human's {@code
 * git commit -a}, {@code git add} or {@code git stash} never runs between memoryd's change of the
 * working tree and the ref move that publishes it, and never sees a branch whose files the index
 * lacks.
 *
 * <p>Lock order is git's: the index first, then the branch ref. A lock is held by one thread (the
 * writer) and released by {@link Held#record} or {@link Held#close}.
 */
public final class WorkTreeIndex {
    private final Repository repo;
    private final Path workTree;
    /** The index as last read or written under the lock (one writer thread uses it). */
    private DirCache cached;

    private boolean parsed;

    public WorkTreeIndex(Repository repo, Path workTree) {
        this.repo = repo;
        this.workTree = workTree;
    }

    /** The lock file git and memoryd take (for messages). */
    public Path lockFile() {
        return repo.getDirectory().toPath().resolve("index.lock");
    }

    /**
     * Takes {@code index.lock}, waiting up to {@code waitMs} for a git command that holds it (git
     * itself never waits, so memoryd yields to it); empty when it is still held then.
     */
    public Optional<Held> lock(long waitMs) throws IOException {
        long deadline = System.nanoTime() + waitMs * 1_000_000;
        while (true) {
            if (stashing()) {
                if (System.nanoTime() > deadline) {
                    return Optional.empty(); // as busy as a held lock
                }
                pause();
                continue;
            }
            if (cached == null) {
                cached = new DirCache(repo.getIndexFile(), repo.getFS());
            }
            if (cached.lock()) {
                try {
                    // Read under the lock only: JGit stats the index after reading it, so a read racing a
                    // git command's rename could pair the old entries with the new file's stat. Parsed
                    // again only when someone else wrote it since: usually memoryd wrote it last.
                    if (!parsed || cached.isOutdated()) {
                        cached.read();
                        parsed = true;
                    }
                } catch (IOException | RuntimeException e) {
                    cached.unlock();
                    cached = null;
                    parsed = false;
                    throw e;
                }
                held = true;
                return Optional.of(new Held(cached));
            } else {
                if (System.nanoTime() > deadline) {
                    return Optional.empty();
                }
                pause();
            }
        }
    }

    /**
     * Whether a {@code git stash} is taking its snapshot: it builds it in a temporary index
     * ({@code index.stash.<pid>}) without the index lock, against the HEAD it read before, so a
     * commit memoryd made meanwhile would go into the stash as if it were the human's change (and
     * come back on {@code stash pop}). Batches wait for it as for the lock.
     */
    private boolean stashing() throws IOException {
        try (java.nio.file.DirectoryStream<Path> d =
                Files.newDirectoryStream(repo.getDirectory().toPath(), "index.stash.*")) {
            return d.iterator().hasNext();
        }
    }

    /** Whether memoryd holds the lock now (the writer thread's own view). */
    private boolean held;

    /**
     * What a read of the working tree can be checked against: whether a git command holds the
     * index lock or takes a stash's snapshot, and which index file is there. A git command rewrites
     * files (a reset, a checkout, a stash) under the index lock, deleting and re-creating each one,
     * and writes the index last; a read made meanwhile can see a file missing or half written.
     */
    public record Mark(boolean busy, Object index, java.nio.file.attribute.FileTime modified) {}

    /** The current {@link Mark}; never busy while memoryd itself holds the lock. */
    public Mark mark() throws IOException {
        boolean busy = !held && (Files.exists(lockFile(), LinkOption.NOFOLLOW_LINKS) || stashing());
        try {
            BasicFileAttributes a = Files.readAttributes(
                    repo.getIndexFile().toPath(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return new Mark(busy, a.fileKey(), a.lastModifiedTime());
        } catch (java.nio.file.NoSuchFileException e) {
            return new Mark(busy, null, null);
        }
    }

    /**
     * Whether a read made between {@code before} and now may have met a git command rewriting the
     * working tree: one held the lock at either end, or the index was written in between.
     */
    public boolean mayHaveRaced(Mark before) throws IOException {
        Mark now = mark();
        return before.busy()
                || now.busy()
                || !java.util.Objects.equals(before.index(), now.index())
                || !java.util.Objects.equals(before.modified(), now.modified());
    }

    /** Waits up to {@code waitMs} until no git command holds the index lock or takes a snapshot. */
    public void awaitGitDone(long waitMs) throws IOException {
        long deadline = System.nanoTime() + waitMs * 1_000_000;
        while (!held
                && (Files.exists(lockFile(), LinkOption.NOFOLLOW_LINKS) || stashing())
                && System.nanoTime() < deadline) {
            pause();
        }
    }

    private void pause() throws java.io.InterruptedIOException {
        try {
            Thread.sleep(1);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for " + lockFile());
        }
    }

    /** A held index lock with the index as it was read under it. */
    public final class Held implements AutoCloseable {
        private DirCache dc;
        /** Entries to record with the next {@link #record} (or on {@link #close}). */
        private final Map<String, ObjectId> pendingBlobs = new java.util.LinkedHashMap<>();

        private final Map<String, Long> pendingSizes = new java.util.HashMap<>();

        private Held(DirCache dc) {
            this.dc = dc;
        }

        /** The index as read under the lock. */
        public DirCache cache() {
            return dc;
        }

        /** Notes files to record as clean at these blobs when the lock is released. */
        public void note(Map<String, ObjectId> blobs, Map<String, Long> sizes) {
            pendingBlobs.putAll(blobs);
            pendingSizes.putAll(sizes);
        }

        /**
         * Records each path of {@code blobs} as clean at that blob (with the file's size and mtime as
         * they are on disk now, and the mode {@code modes} gives) and removes {@code removed}, then
         * writes the index and releases the lock. A path whose file is missing or not the size of its
         * blob is left as it was: a human replaced it meanwhile and {@code git status} must show it.
         */
        public void record(
                Map<String, ObjectId> blobs,
                Map<String, Long> sizes,
                Set<String> removed,
                Function<String, FileMode> modes)
                throws IOException {
            if (!pendingBlobs.isEmpty()) {
                Map<String, ObjectId> all = new java.util.LinkedHashMap<>(pendingBlobs);
                all.putAll(blobs);
                Map<String, Long> allSizes = new java.util.HashMap<>(pendingSizes);
                allSizes.putAll(sizes);
                pendingBlobs.clear();
                blobs = all;
                sizes = allSizes;
            }
            DirCache d = dc;
            dc = null;
            try {
                DirCacheEditor ed = d.editor();
                for (String p : removed) {
                    ed.add(new DirCacheEditor.DeletePath(p));
                }
                for (Map.Entry<String, ObjectId> b : blobs.entrySet()) {
                    BasicFileAttributes a;
                    try {
                        a = Files.readAttributes(
                                workTree.resolve(b.getKey()), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    } catch (IOException e) {
                        continue;
                    }
                    Long want = sizes.get(b.getKey());
                    if (!a.isRegularFile() || (want != null && want != a.size())) {
                        continue;
                    }
                    FileMode m = modes.apply(b.getKey());
                    FileMode mode = m == FileMode.EXECUTABLE_FILE ? m : FileMode.REGULAR_FILE;
                    ed.add(new DirCacheEditor.PathEdit(b.getKey()) {
                        @Override
                        public void apply(DirCacheEntry ent) {
                            ent.setFileMode(mode);
                            ent.setObjectId(b.getValue());
                            ent.setLength(a.size());
                            ent.setLastModified(a.lastModifiedTime().toInstant());
                        }
                    });
                }
                ed.commit();
            } catch (IOException | RuntimeException e) {
                parsed = false; // what is on disk is unknown now: read it again next time
                throw e;
            } finally {
                d.unlock();
                held = false;
            }
        }

        /** Releases the lock if {@link #record} did not, recording what {@link #note} noted. */
        @Override
        public void close() {
            if (dc != null && !pendingBlobs.isEmpty()) {
                try {
                    record(Map.of(), Map.of(), Set.of(), p -> FileMode.REGULAR_FILE);
                    return;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException("cannot write the index", e);
                }
            }
            DirCache d = dc;
            dc = null;
            if (d != null) {
                d.unlock();
                held = false;
            }
        }
    }
}
