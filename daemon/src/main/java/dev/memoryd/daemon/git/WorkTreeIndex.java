package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
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
 * <p>A batch builds its new index before it takes the lock ({@link #prepare}): the lock is then
 * taken by linking the prepared file as {@code index.lock} (as exclusive as git's create) and
 * released by renaming it over the index, so git commands are kept out for two metadata
 * operations instead of a read, an edit and a write of the whole index. The writer builds it
 * again when the index changed since it was prepared from ({@link #current}); when it changes
 * between that and the lock, the batch falls back to the edit under the lock. A {@link Look}
 * taken before the lock lets a batch tell, under it, whether anyone wrote the index since.
 *
 * <p>Lock order is git's: the index first, then the branch ref. A lock is held by one thread (the
 * writer) and released by {@link Held#record} or {@link Held#close}.
 *
 * <p>Longer than a room: the two ways to hold the lock (an index prepared ahead, an index edited
 * under it) share what tells memoryd's index from anyone else's, and must fall back on each
 * other, and both publish the new index the same way (shown while the lock is held, the index
 * before kept until the ref has moved).
 */
public final class WorkTreeIndex {
    /**
     * A size that records a path's blob with a stat no file has: for a blob the branch holds whose
     * working-tree file a human changed since, so that the index follows the branch and {@code git
     * status} still shows the change as not staged.
     */
    public static final long NOT_THE_FILE = -2;

    private final Repository repo;
    private final Path workTree;
    /** The index file memoryd put in place last (its identity); null: none, or unknown. */
    private Identity installed;
    /**
     * The prepared file as last built, entries in memory: what the next batch builds on while that
     * file is still the index (see {@link #prepare}).
     */
    private DirCache shadow;
    /** Whether {@link #shadow} was put in place as the index (renamed over it) by the last publish. */
    private boolean shadowIsIndex;

    /** The index as last read or written under the lock (one writer thread uses it). */
    private DirCache cached;

    private boolean parsed;

    /**
     * Removes the index a published batch replaced once the lock is let go, off the writer's way:
     * the removal frees the file's inode, a journal update that costs hundreds of microseconds
     * while other fsyncs commit, and no reply needs to wait for it. Its thread ends when idle.
     */
    private final java.util.concurrent.ThreadPoolExecutor dropper = new java.util.concurrent.ThreadPoolExecutor(
            0, 1, 1, java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "memoryd-index-drop");
                t.setDaemon(true);
                return t;
            });
    /** The removal {@link #dropper} runs, awaited before {@link #beforeFile} is made again. */
    private java.util.concurrent.Future<?> dropping;

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
                        Identity read = Identity.of(repo.getIndexFile().toPath());
                        if (read != null) { // none yet: nothing to smudge
                            smudgeRacy(cached, read.modified());
                        }
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

    /** A file's identity, size and modification time: what tells one version of the index from another. */
    private record Identity(Object key, long size, java.nio.file.attribute.FileTime modified) {
        static Identity of(Path f) throws IOException {
            try {
                BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                return a.fileKey() == null ? null : new Identity(a.fileKey(), a.size(), a.lastModifiedTime());
            } catch (java.nio.file.NoSuchFileException e) {
                return null;
            }
        }
    }

    /**
     * A new index built before the lock: the index as it was ({@code basedOn}) with a batch's
     * files recorded, written to a private file beside it ({@code memoryd-index}).
     */
    public static final class Prepared {
        private final Identity basedOn;
        private final Identity built;
        private final Map<String, ObjectId> blobs;
        private final Set<String> removed;

        private Prepared(Identity basedOn, Identity built, Map<String, ObjectId> blobs, Set<String> removed) {
            this.basedOn = basedOn;
            this.built = built;
            this.blobs = Map.copyOf(blobs);
            this.removed = Set.copyOf(removed);
        }

        /** Whether it records exactly these files: a batch whose renames left some out needs another. */
        boolean records(Map<String, ObjectId> blobs, Set<String> removed) {
            return this.blobs.equals(blobs) && this.removed.equals(removed);
        }
    }

    /**
     * Whether {@code p} is built on the index as it is now (a stat): when a git command wrote the
     * index since, the lock would have to edit it again while git commands are kept out.
     */
    public boolean current(Prepared p) throws IOException {
        return p.basedOn.equals(Identity.of(repo.getIndexFile().toPath()));
    }

    /** Whether {@code p} is built on the index memoryd put in place last: no one wrote it since. */
    public boolean ours(Prepared p) {
        return p.basedOn.equals(installed);
    }

    /**
     * The index as it is, read without the lock, with the identity of the file read; empty when
     * there is none or it was replaced while it was read. Held against a lock later ({@link
     * Held#unchangedSince}), it tells whether anyone wrote the index between the look and the lock.
     * Changes nothing.
     */
    public Optional<Look> look() throws IOException {
        Path index = repo.getIndexFile().toPath();
        Identity id = Identity.of(index);
        if (id == null) {
            return Optional.empty();
        }
        DirCache dc = DirCache.read(repo.getIndexFile(), repo.getFS());
        return id.equals(Identity.of(index)) ? Optional.of(new Look(id, dc)) : Optional.empty();
    }

    /** The index as {@link #look} read it. */
    public static final class Look {
        private final Identity id;
        private final DirCache cache;

        private Look(Identity id, DirCache cache) {
            this.id = id;
            this.cache = cache;
        }

        /** Its entries. */
        public DirCache cache() {
            return cache;
        }
    }

    private Path preparedFile() {
        return repo.getDirectory().toPath().resolve("memoryd-index");
    }

    /**
     * Builds, without any lock, the index that records each path of {@code blobs} as clean at its
     * blob, with the size {@code sizes} gives and the modification time {@code modified} gives (the
     * time the file will have once in place; a path missing there is stat'ed now), and removes
     * {@code removed}; empty when there is no index to build on, or it changed while it was read.
     */
    public Optional<Prepared> prepare(
            Map<String, ObjectId> blobs,
            Map<String, Long> sizes,
            Map<String, java.nio.file.attribute.FileTime> modified,
            Set<String> removed,
            Function<String, FileMode> modes)
            throws IOException {
        try {
            Path index = repo.getIndexFile().toPath();
            Path next = preparedFile();
            Identity base = Identity.of(index);
            if (base == null) {
                return Optional.empty();
            }
            // Built on only while the index is the very file memoryd put in place (the same inode,
            // untouched since) and the shadow holds its entries: a file prepared for a batch that
            // never published does not.
            boolean fresh = base.equals(installed) && shadowIsIndex && shadow != null;
            if (!fresh) {
                // Someone else wrote the index last (or this writer is new): start from a copy of it.
                othersWrote = true;
                shadow = null;
                Path copy = next.resolveSibling("memoryd-index.copy");
                Files.copy(index, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                if (!base.equals(Identity.of(index))) {
                    Files.deleteIfExists(copy);
                    return Optional.empty(); // rewritten while it was copied
                }
                Files.move(
                        copy,
                        next,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            // Only this writer uses the file: a lock left on it was left by a writer that was killed.
            Files.deleteIfExists(next.resolveSibling("memoryd-index.lock"));
            DirCache d;
            if (fresh) {
                d = shadow; // its entries are the index's: no need to parse the file again
                if (!d.lock()) {
                    return Optional.empty();
                }
            } else {
                try {
                    d = DirCache.lock(next.toFile(), repo.getFS());
                } catch (org.eclipse.jgit.errors.LockFailedException e) {
                    return Optional.empty();
                }
                smudgeRacy(d, base.modified()); // by the index's time, not the copy's
            }
            shadow = null; // until the edit is written: a failed one leaves entries no file has
            shadowIsIndex = false;
            try {
                edit(d, blobs, sizes, modified, removed, modes);
            } catch (IOException | RuntimeException e) {
                d.unlock();
                throw e;
            }
            shadow = d;
            return Optional.of(new Prepared(base, Identity.of(next), blobs, removed));
        } catch (IOException e) {
            // Only an optimisation failed (say, the prepared file shares its inode with an index made
            // immutable): this batch edits the index under the lock, and the next starts from a copy.
            installed = null;
            return Optional.empty();
        }
    }

    /**
     * Takes {@code index.lock} for a {@link Prepared} index, waiting up to {@code waitMs} as
     * {@link #lock(long)} does: the prepared file becomes the lock. When the index is no longer
     * the one it was prepared from, the lock is taken the ordinary way instead (a {@link Held}
     * that edits under the lock).
     */
    public Optional<Held> lock(Prepared p, long waitMs) throws IOException {
        long deadline = System.nanoTime() + waitMs * 1_000_000;
        while (true) {
            Taking t = tryLock(p);
            if (t instanceof Taking.Taken taken) {
                return Optional.of(taken.held());
            }
            if (!(t instanceof Taking.Busy)) {
                return lock(Math.max(0, (deadline - System.nanoTime()) / 1_000_000)); // edited under the lock
            }
            if (System.nanoTime() > deadline) {
                return Optional.empty();
            }
            pause();
        }
    }

    /** How {@link #tryLock} ended. */
    public sealed interface Taking {
        /** The lock is held, the prepared index its content. */
        record Taken(Held held) implements Taking {}

        /** Not taken: a git command holds the lock or takes a stash's snapshot. */
        record Busy() implements Taking {}

        /** Not taken: the index changed since the prepared one was built on it; build it again. */
        record Stale() implements Taking {}

        /** Not taken: the prepared file cannot become the lock (no hard links, or it is gone). */
        record Unusable() implements Taking {}
    }

    /**
     * Takes {@code index.lock} for a {@link Prepared} index if no one holds it and the index is
     * still the one it was prepared from, without waiting. The index is compared before the lock is
     * taken too, so that a lock a {@code git commit} could meet is taken only to be kept.
     */
    public Taking tryLock(Prepared p) throws IOException {
        if (stashing()) {
            return new Taking.Busy();
        }
        if (!current(p)) {
            return new Taking.Stale();
        }
        boolean beforeIsBase;
        try {
            linkBefore();
            // Only memoryd names this file, so it is compared before the lock, out of the hold.
            beforeIsBase = p.basedOn.equals(Identity.of(beforeFile()));
            Files.createLink(lockFile(), preparedFile());
        } catch (java.nio.file.FileAlreadyExistsException e) {
            return new Taking.Busy();
        } catch (UnsupportedOperationException | java.nio.file.NoSuchFileException e) {
            return new Taking.Unusable();
        }
        if (!current(p)) {
            Files.delete(lockFile()); // changed between the look and the link
            return new Taking.Stale();
        }
        held = true;
        Held h = new Held(p);
        if (beforeIsBase) {
            h.before = beforeFile(); // a link to the very index the lock keeps: made before it, out of the hold
        }
        return new Taking.Taken(h);
    }

    /** Where the index before a batch's is kept (a hard link) until the ref has moved. */
    private Path beforeFile() {
        return repo.getIndexFile().toPath().resolveSibling("index.memoryd-before");
    }

    /**
     * Links the index as {@link #beforeFile} ahead of the lock: {@code git commit} fails at once on
     * a held {@code index.lock}, so every file-system operation kept out of the hold counts. The
     * link is used only if the index is still that file once the lock is held.
     */
    private void linkBefore() {
        Path b = beforeFile();
        try {
            awaitDrop();
            Files.deleteIfExists(b);
            Files.createLink(b, repo.getIndexFile().toPath());
        } catch (IOException e) {
            // Only an optimisation failed (no index, or one made immutable): the link is made under
            // the lock instead, where a failure leaves the index to be brought in step later.
        }
    }

    /** Waits for the removal of the index before the last batch's, so that its name is free again. */
    private void awaitDrop() throws IOException {
        java.util.concurrent.Future<?> d = dropping;
        if (d == null) {
            return;
        }
        dropping = null;
        try {
            d.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while removing " + beforeFile());
        } catch (java.util.concurrent.ExecutionException e) {
            // Removed again by whoever makes the name next (a delete that failed once is tried again there).
        }
    }

    /**
     * Whether a {@code git stash} is taking its snapshot: it builds it in a temporary index
     * ({@code index.stash.<pid>}) without the index lock, against the HEAD it read before, so a
     * commit memoryd made meanwhile would go into the stash as if it were the human's change (and
     * come back on {@code stash pop}). Batches wait for it as for the lock.
     */
    private boolean stashing() throws IOException {
        // A filter, not a glob: a glob compiles a regex on every call, once per batch.
        try (java.nio.file.DirectoryStream<Path> d = Files.newDirectoryStream(
                repo.getDirectory().toPath(), f -> f.getFileName().toString().startsWith("index.stash."))) {
            return d.iterator().hasNext();
        }
    }

    /** The index file as it was when {@link #unreadableForm} last read its extensions, and what it found. */
    private Identity formLooked;

    private Optional<IndexFormat> formSeen = Optional.empty();

    /**
     * The form of the index, as git's config makes it or its file has it, that memoryd cannot read
     * ({@link IndexFormat}: split or sparse); empty when it can. The file is read only when someone
     * else wrote it since memoryd put its own in place (memoryd writes it whole) and it changed
     * since the last look, so a batch pays a stat. Changes nothing.
     */
    public Optional<IndexFormat> unreadableForm() throws IOException {
        Optional<IndexFormat> config = IndexFormat.ofConfig(repo.getConfig());
        if (config.isPresent()) {
            return config;
        }
        Path index = repo.getIndexFile().toPath();
        Identity now = Identity.of(index);
        if (now == null || now.equals(installed)) {
            return Optional.empty();
        }
        if (!now.equals(formLooked)) {
            formSeen = IndexFormat.ofFile(index);
            formLooked = now;
        }
        return formSeen;
    }

    /** The index file as it was when {@link #staleAmong} last looked at it (null: never). */
    private Identity looked;

    /** A batch found the index written by someone else since {@link #staleAmong} last looked. */
    private boolean othersWrote;

    /**
     * Of {@code atHead} (paths with the blob the branch head holds), those whose index entry holds
     * another blob while the file in the working tree is the head's (entries a git command put
     * back behind memoryd's commits: a {@code stash pop} sets the index to what it read at its
     * start, and memoryd's next index is built on it and keeps such an entry), and those it holds
     * in conflict. Looks only when someone else wrote the index since it last looked, so the index
     * memoryd keeps in step costs a stat. Reads; changes nothing.
     */
    public Stale staleAmong(java.util.function.Supplier<Map<String, ObjectId>> atHead) throws IOException {
        Identity now = Identity.of(repo.getIndexFile().toPath());
        if (now == null || now.equals(looked) || !(othersWrote || !now.equals(installed))) {
            return new Stale(Map.of(), List.of());
        }
        othersWrote = false;
        looked = now;
        DirCache dc = DirCache.read(repo);
        Map<String, ObjectId> out = new java.util.LinkedHashMap<>();
        List<String> conflicted = new ArrayList<>();
        try (org.eclipse.jgit.lib.ObjectInserter.Formatter fmt = new org.eclipse.jgit.lib.ObjectInserter.Formatter()) {
            for (Map.Entry<String, ObjectId> e : atHead.get().entrySet()) {
                org.eclipse.jgit.dircache.DirCacheEntry ent = dc.getEntry(e.getKey());
                if (ent != null && ent.getStage() != org.eclipse.jgit.dircache.DirCacheEntry.STAGE_0) {
                    conflicted.add(e.getKey());
                    continue;
                }
                Path f = workTree.resolve(e.getKey());
                if (ent == null
                        || ent.getObjectId().equals(e.getValue())
                        || !Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                if (fmt.idFor(org.eclipse.jgit.lib.Constants.OBJ_BLOB, Files.readAllBytes(f))
                        .equals(e.getValue())) {
                    out.put(e.getKey(), e.getValue());
                }
            }
        }
        return new Stale(out, conflicted);
    }

    /** Makes the next {@link #staleAmong} look at the index again, as if someone else had written it. */
    public void lookAgain() {
        looked = null;
        othersWrote = true;
    }

    /**
     * What {@link #staleAmong} found: entries to record at the head's blob, and paths a git merge
     * left in conflict (their working files hold git's markers; the caller decides whose they are).
     */
    public record Stale(Map<String, ObjectId> entries, List<String> conflicted) {
        public Stale {
            entries = Map.copyOf(entries);
            conflicted = List.copyOf(conflicted);
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

    /** Whether a git command holds the index lock now (a stat). */
    public boolean othersHoldLock() {
        return !held && Files.exists(lockFile(), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Waits up to {@code waitMs} until no git command holds the index lock or takes a snapshot:
     * false when one still does.
     */
    public boolean awaitGitDone(long waitMs) throws IOException {
        long deadline = System.nanoTime() + waitMs * 1_000_000;
        while (!held && (Files.exists(lockFile(), LinkOption.NOFOLLOW_LINKS) || stashing())) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            pause();
        }
        return true;
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
        /** The index this lock puts in place; null: one edited under the lock ({@link #dc}). */
        private Prepared prepared;
        /** Entries to record with the next {@link #record} (or on {@link #close}). */
        private final Map<String, ObjectId> pendingBlobs = new java.util.LinkedHashMap<>();

        private final Map<String, Long> pendingSizes = new java.util.HashMap<>();
        /** The index as it was before {@link #publish} replaced it (a hard link), until released or restored. */
        private Path before;
        /** Whether {@link #publish} made the new index the index while the lock is still held. */
        private boolean published;
        /** Whether {@link #restore} put the index before back; {@link #close} lets the lock go. */
        private boolean restored;

        private Held(DirCache dc) {
            this.dc = dc;
        }

        /** The index read under a lock that came with a prepared index ({@link #cache}); null until read. */
        private DirCache readUnderLock;

        private Held(Prepared p) {
            this.prepared = p;
        }

        /** Whether this lock puts an index prepared before it in place (see {@link WorkTreeIndex#prepare}). */
        public boolean prepared() {
            return prepared != null;
        }

        /**
         * Whether the index is still the one memoryd put in place last: no git command wrote it
         * since, so none rewrote a working-tree file through it either.
         */
        public boolean untouchedSinceMemoryd() {
            return prepared != null && prepared.basedOn.equals(installed);
        }

        /**
         * Whether the index under this lock is the very file {@code look} read: no git command wrote
         * it since that look, so none rewrote a working-tree file through it either (git writes the
         * index after what it rewrites).
         */
        public boolean unchangedSince(Look look) {
            return prepared != null && look != null && prepared.basedOn.equals(look.id);
        }

        /** The index as read under the lock (read once, on first use, when the lock came with a prepared index). */
        public DirCache cache() throws IOException {
            if (dc == null && prepared != null) {
                if (readUnderLock == null) {
                    readUnderLock = DirCache.read(repo.getIndexFile(), repo.getFS());
                }
                return readUnderLock;
            }
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
            publish(blobs, sizes, removed, modes, false);
            release();
        }

        /**
         * As {@link #record}, but the lock is kept: the new index is the index from now on (a git
         * command that reads the branch and then the index, as {@code git commit} does without any
         * lock, must never pair the ref memoryd moves next with the index before it), and {@link
         * #release} lets the lock go once the ref has moved, or {@link #restore} puts the index
         * before back when it did not.
         */
        public void publish(
                Map<String, ObjectId> blobs,
                Map<String, Long> sizes,
                Set<String> removed,
                Function<String, FileMode> modes)
                throws IOException {
            publish(blobs, sizes, removed, modes, true);
        }

        /** {@code restorable}: keeps the index before for {@link #restore} (nothing to restore when the lock goes at once). */
        private void publish(
                Map<String, ObjectId> blobs,
                Map<String, Long> sizes,
                Set<String> removed,
                Function<String, FileMode> modes,
                boolean restorable)
                throws IOException {
            if (restorable && before == null) {
                keepBefore();
            }
            if (prepared != null) {
                Prepared p = prepared;
                prepared = null;
                try {
                    if (!p.records(blobs, removed)) {
                        installed = null;
                        Prepared again = prepare(blobs, sizes, Map.of(), removed, modes)
                                .orElseThrow(() -> new IOException("the index went missing under memoryd's lock"));
                        Files.move(
                                preparedFile(),
                                lockFile(),
                                java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                        p = again;
                        showLockAsIndex();
                    } else {
                        // The prepared file is the lock's other name: renamed over the index, it is the
                        // index while the lock stays held, in one operation instead of a link and a rename.
                        Files.move(
                                preparedFile(),
                                repo.getIndexFile().toPath(),
                                java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                        shadowIsIndex = true;
                    }
                    installed = p.built;
                } catch (IOException | RuntimeException e) {
                    installed = null;
                    throw e;
                }
                published = true;
                return;
            }
            if (!pendingBlobs.isEmpty()) {
                Map<String, ObjectId> all = new java.util.LinkedHashMap<>(pendingBlobs);
                all.putAll(blobs);
                Map<String, Long> allSizes = new java.util.HashMap<>(pendingSizes);
                allSizes.putAll(sizes);
                pendingBlobs.clear();
                blobs = all;
                sizes = allSizes;
            }
            try {
                edit(dc, blobs, sizes, Map.of(), removed, modes, false);
                showLockAsIndex();
            } catch (IOException | RuntimeException e) {
                parsed = false; // what is on disk is unknown now: read it again next time
                throw e;
            }
            published = true;
        }

        /**
         * After {@link #publish}: lets the lock go, the published index staying the index; the index
         * before it is removed afterwards, in the background.
         */
        public void release() throws IOException {
            try {
                letGo();
            } finally {
                Path b = before;
                before = null;
                if (b != null) {
                    dropping = dropper.submit(() -> {
                        Files.deleteIfExists(b);
                        return null;
                    });
                }
            }
        }

        /**
         * After {@link #publish}: puts back the index as it was before it (the ref did not move, so
         * the new one would stage memoryd's undone change). The lock stays held until {@link
         * #close}, so no git command runs while the batch's files are put back.
         */
        public void restore() throws IOException {
            installed = null;
            parsed = false;
            published = false;
            restored = true;
            Path index = repo.getIndexFile().toPath();
            if (before != null) {
                Files.move(
                        before,
                        index,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                before = null;
            } else {
                Files.deleteIfExists(index);
            }
        }

        /** Whether {@link #publish} made the new index the index (and neither release nor restore came yet). */
        public boolean published() {
            return published;
        }

        private void letGo() throws IOException {
            published = false;
            held = false;
            DirCache d = dc;
            dc = null;
            if (d != null) {
                d.unlock(); // deletes index.lock: the index is another link to the same file
            } else if (!lockFile().toFile().delete() && Files.exists(lockFile(), LinkOption.NOFOLLOW_LINKS)) {
                // File#delete is one unlink where Files#delete stats the file first, under git's lock
                throw new IOException("could not remove " + lockFile());
            }
        }

        private void keepBefore() throws IOException {
            Path index = repo.getIndexFile().toPath();
            Path b = beforeFile();
            awaitDrop();
            Files.deleteIfExists(b);
            if (Files.exists(index, LinkOption.NOFOLLOW_LINKS)) {
                Files.createLink(b, index);
                before = b;
            }
        }

        private void dropBefore() throws IOException {
            if (before != null) {
                Files.deleteIfExists(before);
                before = null;
            }
        }

        /** Makes the lock file's content the index (a link renamed over it), the lock still held. */
        private void showLockAsIndex() throws IOException {
            Path index = repo.getIndexFile().toPath();
            Path next = index.resolveSibling("index.memoryd-new");
            Files.deleteIfExists(next);
            Files.createLink(next, lockFile());
            Files.move(
                    next,
                    index,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }

        /** Releases the lock if {@link #record} did not, recording what {@link #note} noted. */
        @Override
        public void close() {
            if (restored) {
                restored = false;
                try {
                    letGo();
                    dropBefore();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException("cannot release " + lockFile(), e);
                }
                return;
            }
            if (published) {
                try {
                    release();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException("cannot release " + lockFile(), e);
                }
                return;
            }
            if (prepared != null) {
                prepared = null;
                held = false;
                try {
                    Files.deleteIfExists(lockFile());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException("cannot release " + lockFile(), e);
                }
                return;
            }
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

    /**
     * Records each path of {@code blobs} as clean at its blob in {@code d} (locked), with its size
     * and modification time ({@code modified}, else the file's as it is now), removes
     * {@code removed}, and writes and commits {@code d}. A path whose file is missing or not the
     * size of its blob is left as it was: a human replaced it meanwhile and {@code git status}
     * must show it.
     */
    private void edit(
            DirCache d,
            Map<String, ObjectId> blobs,
            Map<String, Long> sizes,
            Map<String, java.nio.file.attribute.FileTime> modified,
            Set<String> removed,
            Function<String, FileMode> modes)
            throws IOException {
        edit(d, blobs, sizes, modified, removed, modes, true);
    }

    /**
     * The paths the index file holds at a merge stage (1, 2 or 3), in index order: conflicts a git
     * command left there. Read only when someone else wrote the index since memoryd put its own in
     * place (a stat otherwise: memoryd's own index adds no conflict, and one it kept was seen when
     * the index it was built from was). Changes nothing.
     */
    public List<String> conflictedNow() throws IOException {
        Identity now = Identity.of(repo.getIndexFile().toPath());
        if (now == null || now.equals(installed)) {
            return List.of();
        }
        return conflicted();
    }

    /** The paths the index file holds at a merge stage (1, 2 or 3), in index order. Reads the index; changes nothing. */
    public List<String> conflicted() throws IOException {
        DirCache d = DirCache.read(repo);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < d.getEntryCount(); i++) {
            DirCacheEntry e = d.getEntry(i);
            String p = e.getPathString();
            if (e.getStage() != DirCacheEntry.STAGE_0
                    && (out.isEmpty() || !out.get(out.size() - 1).equals(p))) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * Whether the index file as it is now holds {@code path} at a merge stage (1, 2 or 3): a
     * conflict a git command left there. Reads the index; changes nothing.
     */
    public boolean inConflict(String path) throws IOException {
        return unmerged(DirCache.read(repo), path);
    }

    /** Whether the index holds {@code path} at a merge stage (1, 2 or 3): a conflict git left there. */
    private static boolean unmerged(DirCache d, String path) {
        int i = d.findEntry(path);
        if (i < 0) {
            return false;
        }
        for (int k = i, end = d.nextEntry(i); k < end; k++) {
            if (d.getEntry(k).getStage() != DirCacheEntry.STAGE_0) {
                return true;
            }
        }
        return false;
    }

    /**
     * git's racy rule, by the second: an entry whose file was modified in or after the second the
     * index it came from was written in may no longer match its file, and is smudged (its size
     * zeroed) so that git reads the file again, as git does when it writes an index it read. JGit
     * smudges by the nanosecond, which git (comparing whole seconds unless built with nanosecond
     * times) does not: a human's file saved twice in one second then looked clean to git once
     * memoryd had written the index, and `git commit -a` left the change out.
     */
    private static void smudgeRacy(DirCache d, java.nio.file.attribute.FileTime indexTime) {
        long second = indexTime.toInstant().getEpochSecond();
        for (int i = 0; i < d.getEntryCount(); i++) {
            DirCacheEntry e = d.getEntry(i);
            if (e.getLength() != 0 && e.getLastModifiedInstant().getEpochSecond() >= second) {
                e.smudgeRacilyClean();
            }
        }
    }

    /** As {@link #edit(DirCache, Map, Map, Map, Set, Function)}; with {@code commit} false the lock file is written and kept. */
    private void edit(
            DirCache d,
            Map<String, ObjectId> blobs,
            Map<String, Long> sizes,
            Map<String, java.nio.file.attribute.FileTime> modified,
            Set<String> removed,
            Function<String, FileMode> modes,
            boolean commit)
            throws IOException {
        List<Recorded> records = new ArrayList<>(blobs.size());
        for (Map.Entry<String, ObjectId> b : blobs.entrySet()) {
            Long want = sizes.get(b.getKey());
            java.nio.file.attribute.FileTime time = modified.get(b.getKey());
            long size;
            if (want != null && want == NOT_THE_FILE) {
                size = 0; // with the epoch as its time: git reads the file again, and shows the human's change
                time = java.nio.file.attribute.FileTime.fromMillis(0);
            } else if (time != null && want != null) {
                size = want;
            } else {
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(
                            workTree.resolve(b.getKey()), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException e) {
                    continue;
                }
                if (!a.isRegularFile() || (want != null && want != a.size())) {
                    continue;
                }
                size = a.size();
                time = a.lastModifiedTime();
            }
            FileMode m = modes.apply(b.getKey());
            records.add(new Recorded(
                    b.getKey(),
                    b.getValue(),
                    m == FileMode.EXECUTABLE_FILE ? m : FileMode.REGULAR_FILE,
                    size,
                    time.toInstant()));
        }
        if (!inPlace(d, records, removed)) {
            DirCacheEditor ed = d.editor();
            for (String p : removed) {
                ed.add(new DirCacheEditor.DeletePath(p));
            }
            for (Recorded r : records) {
                if (unmerged(d, r.path())) {
                    // A path edit applies to every stage and keeps each one's number: a conflict (say, a
                    // stash pop over memoryd's own ledger line) would stay unmerged for good. memoryd's
                    // commit resolves the path: its entries go, and one entry at stage 0 takes their place.
                    ed.add(new DirCacheEditor.DeletePath(r.path()));
                }
                ed.add(new DirCacheEditor.PathEdit(r.path()) {
                    @Override
                    public void apply(DirCacheEntry ent) {
                        r.applyTo(ent);
                    }
                });
            }
            ed.finish();
        }
        d.write();
        if (commit && !d.commit()) {
            throw new IOException("cannot write " + d + ": its lock was lost");
        }
    }

    /** What one path's entry is set to: clean at {@code blob}, with the file's mode, size and time. */
    private record Recorded(String path, ObjectId blob, FileMode mode, long size, java.time.Instant modified) {
        void applyTo(DirCacheEntry ent) {
            ent.setFileMode(mode);
            ent.setObjectId(blob);
            ent.setLength(size);
            ent.setLastModified(modified);
        }
    }

    /**
     * Sets each record's entry where it stands when the batch adds and removes no path: every path
     * already an entry at stage 0 alone, and {@code d} holding no cache tree that the change would
     * leave stale (the entries memoryd edited last carry none). An editor would copy and sort every
     * entry and compare each with its neighbours for the same result. False, and {@code d}
     * untouched, otherwise.
     */
    private static boolean inPlace(DirCache d, List<Recorded> records, Set<String> removed) {
        if (!removed.isEmpty() || d.getCacheTree(false) != null) {
            return false;
        }
        DirCacheEntry[] entries = new DirCacheEntry[records.size()];
        for (int i = 0; i < entries.length; i++) {
            int at = d.findEntry(records.get(i).path());
            if (at < 0 || d.nextEntry(at) != at + 1 || d.getEntry(at).getStage() != DirCacheEntry.STAGE_0) {
                return false;
            }
            entries[i] = d.getEntry(at);
        }
        for (int i = 0; i < entries.length; i++) {
            records.get(i).applyTo(entries[i]);
        }
        return true;
    }
}
