package dev.memoryd.daemon.write;

import dev.memoryd.grammar.RepoPath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;

/**
 * Tells a memory file the working tree holds as it was before the branch moved forward, with
 * git's index holding that version too: the branch was moved by something that updates neither
 * (a push into the checked-out branch where {@code receive.denyCurrentBranch} is {@code ignore},
 * a {@code git update-ref}). Such a file is stale, not edited, and the writer brings it up to the
 * new commit, as {@code receive.denyCurrentBranch=updateInstead} would. A commit made in the
 * working tree updates the index, and a human's save changes the file: either one makes the file
 * theirs, left alone and captured as ever.
 *
 * <p>Reads the index without its lock; the rename that brings a file up still checks that the
 * file holds what it held here ({@link WritePipeline.FileStore#stage}). On the writer thread.
 */
final class BehindBranch {
    private final WriterState s;
    private DirCache index;
    private boolean looked;

    BehindBranch(WriterState s) {
        this.s = s;
    }

    /**
     * Whether the working tree's {@code p} and its index entry both hold the version of commit
     * {@code from} (both absent where {@code from} has no {@code p}) while {@code now}, the branch's
     * newer text of it, differs. A deleted file ({@code now} empty) is never behind: the writer
     * only writes files into place.
     */
    boolean behind(WriteBatch b, RepoPath p, ObjectId from, Optional<String> now) throws IOException {
        if (now.isEmpty() || s.index == null || !s.files.workTree()) {
            return false;
        }
        Optional<String> disk;
        try {
            disk = b.disk(p); // the base the rename checks against
        } catch (UnmergedFile conflict) {
            return false;
        }
        if (disk.equals(now)) {
            return false;
        }
        if (index() == null) {
            return false; // unreadable, or replaced while read: nothing is known of git's view
        }
        Optional<ObjectId> old = Optional.ofNullable(
                s.git.blobIds(from, java.util.List.of(p.value())).get(p.value()));
        DirCacheEntry entry = index().getEntry(p.value());
        if (old.isEmpty()) {
            return disk.isEmpty() && entry == null;
        }
        if (disk.isEmpty()
                || entry == null
                || entry.getStage() != DirCacheEntry.STAGE_0
                || !entry.getObjectId().equals(old.get())) {
            return false;
        }
        Path f = s.files.root().resolve(p.value());
        if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
            return fmt.idFor(Constants.OBJ_BLOB, Files.readAllBytes(f)).equals(old.get());
        }
    }

    /** git's index, read once; null when there is none or it was replaced while read. */
    private DirCache index() throws IOException {
        if (!looked) {
            looked = true;
            index = s.index
                    .look()
                    .map(dev.memoryd.daemon.git.WorkTreeIndex.Look::cache)
                    .orElse(null);
        }
        return index;
    }
}
