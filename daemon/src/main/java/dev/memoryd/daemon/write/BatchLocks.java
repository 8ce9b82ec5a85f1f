package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.GitStore;
import java.io.IOException;
import java.util.Optional;

/**
 * The locks of one batch beyond the branch's ref lock: the index lock it takes just before it
 * changes the working tree (git's order: index, then ref). Lives for one batch, on the writer
 * thread only.
 */
final class BatchLocks implements AutoCloseable {
    final long waitMs;
    private final GitStore git;
    /** The working tree's index (null for a branch not checked out). */
    private final dev.memoryd.daemon.git.WorkTreeIndex worktree;

    dev.memoryd.daemon.git.WorkTreeIndex.Held index;
    /** When {@link #index} was taken: how long git commands were kept out is what a human feels. */
    long heldSince;

    BatchLocks(long waitMs, GitStore git, dev.memoryd.daemon.git.WorkTreeIndex worktree) {
        this.waitMs = waitMs;
        this.git = git;
        this.worktree = worktree;
    }

    /**
     * Takes the index lock for a batch that holds the ref lock. When a git command holds the
     * index, it may be about to move the ref: the ref lock is let go until the command is done, so
     * it does not fail on it, and the batch is redone when the branch moved meanwhile.
     */
    void lockIndex() throws IOException, RedoBatch, LockedOut {
        lockIndex(null);
    }

    /**
     * The worktree's index with a batch's files recorded, built before the lock (see {@link
     * dev.memoryd.daemon.git.WorkTreeIndex#prepare}); empty when the index is not this batch's to
     * prepare (a branch not checked out, a lock held already, no index to build on).
     */
    Optional<dev.memoryd.daemon.git.WorkTreeIndex.Prepared> prepareIndex(
            java.util.Map<String, org.eclipse.jgit.lib.ObjectId> blobs,
            java.util.Map<String, Long> sizes,
            java.util.Map<String, java.nio.file.attribute.FileTime> modified,
            java.util.Set<String> removed)
            throws IOException {
        if (worktree == null || index != null) {
            return Optional.empty();
        }
        return worktree.prepare(blobs, sizes, modified, removed, git::modeOf);
    }

    /**
     * Takes the index lock with {@code prepared} as its content when the index is still the one it
     * was prepared from: true when held (taken the ordinary way, {@link #lockIndex}, when the
     * prepared file cannot be the lock). False when the index changed since (build it again and
     * look again, then retry); when a git command holds the lock, the ref lock is let go until the
     * command is done, then held again and false returned, since such a command usually writes the
     * index. The batch is redone when the command moved the branch.
     */
    boolean tryPrepared(dev.memoryd.daemon.git.WorkTreeIndex.Prepared prepared)
            throws IOException, RedoBatch, LockedOut {
        if (worktree == null || index != null) {
            return true;
        }
        dev.memoryd.daemon.git.WorkTreeIndex.Taking t = worktree.tryLock(prepared);
        if (t instanceof dev.memoryd.daemon.git.WorkTreeIndex.Taking.Taken taken) {
            index = taken.held();
            heldSince = System.nanoTime();
            return true;
        }
        if (t instanceof dev.memoryd.daemon.git.WorkTreeIndex.Taking.Unusable) {
            lockIndex(prepared);
            return true;
        }
        if (t instanceof dev.memoryd.daemon.git.WorkTreeIndex.Taking.Busy) {
            git.releaseRef();
            if (!worktree.awaitGitDone(waitMs)) {
                throw new LockedOut(worktree.lockFile());
            }
            if (!git.holdRef(waitMs)) {
                throw new LockedOut(git.refLockFile());
            }
            if (!java.util.Objects.equals(git.refNow(), git.head())) {
                throw new RedoBatch(); // the command committed: the batch is redone on top of its commit
            }
        }
        return false;
    }

    /** As {@link #lockIndex()}, putting {@code prepared} (when not null) in place when the lock is let go. */
    void lockIndex(dev.memoryd.daemon.git.WorkTreeIndex.Prepared prepared) throws IOException, RedoBatch, LockedOut {
        if (worktree == null || index != null) {
            return;
        }
        Optional<dev.memoryd.daemon.git.WorkTreeIndex.Held> h =
                prepared == null ? worktree.lock(0) : worktree.lock(prepared, 0);
        if (h.isEmpty()) {
            git.releaseRef();
            h = prepared == null ? worktree.lock(waitMs) : worktree.lock(prepared, waitMs);
            if (h.isEmpty()) {
                throw new LockedOut(worktree.lockFile());
            }
            index = h.get();
            if (!git.holdRef(waitMs)) {
                throw new LockedOut(git.refLockFile());
            }
            heldSince = System.nanoTime();
            if (!java.util.Objects.equals(git.refNow(), git.head())) {
                // The command committed: the batch is redone on top of its commit, and git commands are
                // not kept out while it is (the ref lock alone keeps the branch still).
                close();
                throw new RedoBatch();
            }
            return;
        }
        index = h.get();
        heldSince = System.nanoTime();
    }

    @Override
    public void close() {
        if (index != null) {
            index.close();
            index = null;
        }
    }

    /** The branch moved while a batch waited for the index: the batch is redone on top of it. */
    static final class RedoBatch extends Exception {
        private static final long serialVersionUID = 1L;

        RedoBatch() {
            super(null, null, false, false);
        }
    }

    /** A git command kept a lock the batch needs past the wait. */
    static final class LockedOut extends Exception {
        private static final long serialVersionUID = 1L;
        final java.nio.file.Path lock;

        LockedOut(java.nio.file.Path lock) {
            super(null, null, false, false);
            this.lock = lock;
        }
    }
}
