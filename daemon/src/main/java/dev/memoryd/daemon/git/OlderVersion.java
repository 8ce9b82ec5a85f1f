package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Tells a memory file that a git command put back to an older version of itself (a {@code git
 * checkout <commit> -- <file>}, a stash's or a merge's rewrite of the working tree, or a {@code
 * stash pop} that conflicted with an older version on its side) from a human's edit. Each leaves
 * the file's text unlike what memoryd recorded; only git records in the index the bytes it wrote,
 * and a rollback's bytes are what the branch held for that file at one of its earlier commits.
 * Such a text is not a human's edit: a human takes back what an agent wrote with a commit, which
 * memoryd records as theirs. An editor's save (even one that undoes an agent's addition) leaves
 * the index alone and is captured as an edit.
 *
 * <p>Reads the index file and the branch's history; changes nothing. Thread-safe.
 */
public final class OlderVersion {
    /** How far back the branch's first-parent history is searched for the file's text. */
    static final int DEPTH = 200;

    private OlderVersion() {}

    /**
     * Whether {@code disk} (the file's text, empty when it is missing) is what git wrote at
     * {@code path} (the index records those bytes, or records no file where there is none) and
     * is the text the branch held there at one of its last {@value #DEPTH} commits; or the index
     * holds the path in conflict between the head's text and such an older one.
     */
    public static boolean putBackByGit(GitStore git, String path, Optional<String> disk) throws IOException {
        ObjectId head = git.head();
        if (head == null) {
            return false;
        }
        DirCache index = DirCache.read(git.repository());
        ObjectId theirs = stashedOverHead(git, index, path);
        if (theirs != null) {
            return heldBefore(git, head, path, theirs);
        }
        DirCacheEntry e = index.getEntry(path);
        ObjectId diskId;
        try (ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
            diskId = disk.map(t -> fmt.idFor(Constants.OBJ_BLOB, t.getBytes(StandardCharsets.UTF_8)))
                    .orElse(null);
        }
        boolean gitWrote = diskId != null ? e != null && e.getObjectId().equals(diskId) : e == null;
        if (!gitWrote) {
            return false;
        }
        return heldBefore(git, head, path, diskId);
    }

    /**
     * The two sides of a conflict git left at {@code path} in the index ("ours", stage 2, then
     * "theirs", stage 3), each as its bytes; empty when the path is not in conflict between two
     * versions (a side deleted counts as none).
     */
    public static Optional<List<byte[]>> conflictSides(GitStore git, String path) throws IOException {
        ObjectId[] sides = sides(DirCache.read(git.repository()), path);
        if (sides == null) {
            return Optional.empty();
        }
        return Optional.of(List.of(
                git.repository().open(sides[0]).getCachedBytes(Integer.MAX_VALUE),
                git.repository().open(sides[1]).getCachedBytes(Integer.MAX_VALUE)));
    }

    /** The blobs of stages 2 ("ours") and 3 ("theirs") of {@code path} in {@code index}; null unless both are there. */
    private static ObjectId[] sides(DirCache index, String path) {
        int i = index.findEntry(path);
        if (i < 0) {
            return null;
        }
        ObjectId ours = null;
        ObjectId theirs = null;
        for (int k = i, end = index.nextEntry(i); k < end; k++) {
            DirCacheEntry e = index.getEntry(k);
            if (e.getStage() == DirCacheEntry.STAGE_2) {
                ours = e.getObjectId();
            } else if (e.getStage() == DirCacheEntry.STAGE_3) {
                theirs = e.getObjectId();
            }
        }
        return ours == null || theirs == null ? null : new ObjectId[] {ours, theirs};
    }

    /**
     * For a path git left in conflict with the branch's own text on one side (stage 2, "ours", is
     * the head's blob), the other side's blob (stage 3: what a {@code stash pop} or a merge
     * brought); null otherwise. A stash taken while memoryd committed (git's unlocked moment
     * before the stash's snapshot) holds memoryd's own earlier text of a file, and its pop then
     * conflicts with memoryd's later writes: the other side is an older version, and the working
     * file's conflict markers are git's, not a human's edit.
     */
    private static ObjectId stashedOverHead(GitStore git, DirCache index, String path) throws IOException {
        ObjectId[] sides = sides(index, path);
        if (sides == null) {
            return null;
        }
        try (TreeWalk tw = TreeWalk.forPath(
                git.repository(), path, git.repository().parseCommit(git.head()).getTree())) {
            return tw != null && tw.getObjectId(0).equals(sides[0]) ? sides[1] : null;
        }
    }

    /**
     * Whether {@code bytes} are what the branch held at {@code path} at one of the last {@value
     * #DEPTH} commits before {@code commit} (not at {@code commit} itself).
     */
    public static boolean heldBefore(GitStore git, ObjectId commit, String path, byte[] bytes) throws IOException {
        try (org.eclipse.jgit.lib.ObjectInserter.Formatter fmt = new org.eclipse.jgit.lib.ObjectInserter.Formatter()) {
            return heldBefore(git, commit, path, fmt.idFor(org.eclipse.jgit.lib.Constants.OBJ_BLOB, bytes));
        }
    }

    /**
     * Whether {@code id} (null: no file) is what the branch held at {@code path} at one of its last
     * {@value #DEPTH} commits before the head.
     */
    private static boolean heldBefore(GitStore git, ObjectId head, String path, ObjectId id) throws IOException {
        try (RevWalk rw = new RevWalk(git.repository())) {
            RevCommit c = rw.parseCommit(head);
            for (int n = 0; n < DEPTH && c != null; n++) {
                try (TreeWalk tw = TreeWalk.forPath(git.repository(), path, c.getTree())) {
                    ObjectId there = tw == null ? null : tw.getObjectId(0);
                    if (java.util.Objects.equals(there, id)) {
                        return n > 0; // at the head itself it is not older: that is the branch's own text
                    }
                }
                c = c.getParentCount() == 0 ? null : rw.parseCommit(c.getParent(0));
            }
        }
        return false;
    }
}
