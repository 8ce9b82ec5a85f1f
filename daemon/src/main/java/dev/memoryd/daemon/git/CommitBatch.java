package dev.memoryd.daemon.git;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;

/**
 * A group of commits on a {@link GitStore}'s branch, each on top of the previous, sharing one
 * object flush (one pack) and one ref move: {@link #publish} flushes the objects and moves the
 * branch with a compare-and-swap on the head the batch started from. Its objects are invisible
 * until the ref moves; a batch closed without moving leaves the store's tree image as the branch
 * has it. The store's writer thread only, but for {@link #prepareMove}.
 */
public final class CommitBatch implements AutoCloseable {
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(CommitBatch.class.getName());
    private final GitStore store;
    private final TreeModel tree;
    private final BatchPackInserter ins;
    /** The store's pieces of the large blobs it wrote last, for a path's first version in this batch. */
    private final PieceDeflater pieces;

    private final ObjectId base;
    private ObjectId tip;
    private final Map<String, ObjectId> written = new LinkedHashMap<>();
    private final Set<String> removed = new LinkedHashSet<>();
    private boolean moved;
    /** What the last {@link #flush} installed (read by {@link #forceFlushed} on another thread). */
    private volatile BatchPackInserter.Installed flushed;

    /** Every pack this batch flushed, each held by its keep file until the batch is closed. */
    private final java.util.List<BatchPackInserter.Installed> kept = new java.util.ArrayList<>();

    /** The bytes of each path's last blob in this batch: the base of its next version's delta. */
    private final Map<String, byte[]> lastBytes = new HashMap<>();

    CommitBatch(GitStore store, TreeModel tree, BatchPackInserter ins, PieceDeflater pieces) {
        this.store = store;
        this.tree = tree;
        this.ins = ins;
        this.pieces = pieces;
        this.base = store.head();
        this.tip = base;
    }

    /** Commits on top of the batch's tip; a null value removes that path from the tree. */
    public ObjectId commit(Map<String, byte[]> files, PersonIdent author, PersonIdent committer, String message)
            throws IOException {
        return commit(files, author, committer, message, null);
    }

    /** As {@link #commit}, with a second parent (a merge) when {@code mergeParent} is not null. */
    public ObjectId commit(
            Map<String, byte[]> files, PersonIdent author, PersonIdent committer, String message, ObjectId mergeParent)
            throws IOException {
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            if (f.getValue() == null) {
                tree.remove(f.getKey());
                pieces.forget(f.getKey());
                written.remove(f.getKey());
                lastBytes.remove(f.getKey());
                removed.add(f.getKey());
                continue;
            }
            removed.remove(f.getKey());
            byte[] data = f.getValue();
            ObjectId prev = written.get(f.getKey());
            ObjectId blob;
            if (prev != null) {
                blob = ins.insertBlobAfter(prev, lastBytes.get(f.getKey()), data);
            } else if (data.length >= PieceDeflater.MIN_BYTES) {
                blob = ins.insertBlob(f.getKey(), data, pieces);
            } else {
                pieces.forget(f.getKey());
                blob = ins.insert(Constants.OBJ_BLOB, data);
            }
            tree.put(f.getKey(), blob);
            written.put(f.getKey(), blob);
            lastBytes.put(f.getKey(), data);
        }
        CommitBuilder cb = new CommitBuilder();
        cb.setTreeId(tree.write(ins));
        if (tip != null && mergeParent != null) {
            cb.setParentIds(tip, mergeParent);
        } else if (tip != null) {
            cb.setParentId(tip);
        }
        cb.setAuthor(author);
        cb.setCommitter(committer);
        cb.setMessage(message);
        tip = ins.insert(cb);
        return tip;
    }

    public ObjectId tip() {
        return tip;
    }

    /** Blob ids written in this batch, by path (last write wins). */
    public Map<String, ObjectId> written() {
        return written;
    }

    /** Paths this batch removed from the tree (and did not write again after). */
    public Set<String> removed() {
        return removed;
    }

    /** {@link #flush}, {@link #forceFlushed}, then {@link #moveRef}. */
    public RefMove publish() throws IOException {
        flush();
        forceFlushed();
        return moveRef();
    }

    /** Writes the batch's objects (one pack); {@link #forceFlushed} makes them durable. */
    public void flush() throws IOException {
        ins.flush();
        flushed = ins.installed();
        if (flushed != null) {
            kept.add(flushed);
        }
    }

    /**
     * Forces the pack and index {@link #flush} wrote, and their directory, to disk; call before the
     * ref moves. Touches only those files, so it may run on another thread once the flush returned.
     */
    public void forceFlushed() throws IOException {
        BatchPackInserter.Installed f = flushed;
        if (f != null) {
            f.force();
        }
    }

    /**
     * Moves the branch to the tip, compare-and-swap on the head the batch started from. Done as
     * git itself does it (create {@code <ref>.lock} exclusively, check the current value, write,
     * rename), which costs half of JGit's RefUpdate here; the batch is a fast-forward by
     * construction, and no reflog is written (the ledger and the commit chain are the history).
     * {@link RefMove.Result#NO_CHANGE} when the batch made no commit.
     */
    public RefMove moveRef() throws IOException {
        if (tip == null || tip.equals(base)) {
            return new RefMove(RefMove.Result.NO_CHANGE, store.ref(), base, store.refLockFile());
        }
        RefMove m = store.swap(base, tip);
        moved = m.result() == RefMove.Result.MOVED;
        return m;
    }

    /**
     * Readies {@link #moveRef} (see {@link GitStore#prepareRef}); call once the batch's commits are
     * made. It touches only the ref lock, so it may run on another thread beside {@link #flush}
     * (the lock becomes the ref only at the move, after the flush); the caller awaits it before
     * anything else uses the batch's ref or lock.
     */
    public void prepareMove() throws IOException {
        if (tip != null && !tip.equals(base)) {
            store.prepareRef(base, tip);
        }
    }

    @Override
    public void close() {
        if (!moved && tip != null && !tip.equals(base)) {
            store.reseedTree(); // a batch that never published leaves the tree image as its commits made it
        }
        for (BatchPackInserter.Installed k : kept) {
            try {
                ins.release(k); // published or given up: git's gc may take the pack from here on
            } catch (IOException e) {
                LOG.log(
                        java.util.logging.Level.WARNING,
                        "could not remove a pack's keep file; removed at the next start",
                        e);
            }
        }
        store.giveBack(ins);
        store.batchClosed(); // not after a failed re-seed: the image is then not the head's
    }
}
