package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Keeps git's index in step with memoryd's commits outside a batch, so a human's
 * {@code git status} shows no spurious changes: records files as clean at given blobs, or
 * after a crash every head-tree file whose working copy has the head's bytes. An index another
 * git command holds is left alone (false: retry later).
 */
final class IndexSync {
    private IndexSync() {}

    /** See {@link GitStore#updateIndex(Path, Map, Set)}. */
    static boolean update(
            Repository repo,
            Path workTree,
            Map<String, ObjectId> blobs,
            Set<String> removed,
            Function<String, FileMode> modeOf)
            throws IOException {
        if (blobs.isEmpty() && removed.isEmpty()) {
            return true;
        }
        Optional<WorkTreeIndex.Held> held = new WorkTreeIndex(repo, workTree).lock(0);
        if (held.isEmpty()) {
            return false;
        }
        Map<String, Long> sizes = new java.util.HashMap<>();
        Map<String, ObjectId> still = stillAt(repo, workTree, blobs, sizes);
        try (WorkTreeIndex.Held h = held.get()) {
            h.record(still, sizes, removed, modeOf);
        }
        return true;
    }

    /**
     * The entries of {@code blobs} that may still be recorded, with their sizes put in {@code
     * sizes}: those whose working-tree file holds exactly that blob now (recorded clean), and those
     * whose file a human changed since (size {@link WorkTreeIndex#NOT_THE_FILE}: the index follows
     * the branch and {@code git status} shows the human's change). A missing file is left out, and
     * so is a changed file whose index entry already holds it as it is now: a git command staged
     * it ({@code git add}), and the entry is the human's, for their commit.
     */
    static Map<String, ObjectId> stillAt(
            Repository repo, Path workTree, Map<String, ObjectId> blobs, Map<String, Long> sizes) throws IOException {
        Map<String, ObjectId> out = new LinkedHashMap<>();
        DirCache index = null; // read only when a file is not what memoryd recorded
        try (ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
            for (Map.Entry<String, ObjectId> e : blobs.entrySet()) {
                Path f = workTree.resolve(e.getKey());
                if (!Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                byte[] now = Files.readAllBytes(f);
                ObjectId onDisk = fmt.idFor(Constants.OBJ_BLOB, now);
                if (onDisk.equals(e.getValue())) {
                    out.put(e.getKey(), e.getValue());
                    sizes.put(e.getKey(), (long) now.length);
                    continue;
                }
                if (index == null) {
                    index = DirCache.read(repo.getIndexFile(), repo.getFS());
                }
                DirCacheEntry entry = index.getEntry(e.getKey());
                if (entry != null
                        && entry.getStage() == DirCacheEntry.STAGE_0
                        && entry.getObjectId().equals(onDisk)) {
                    continue;
                }
                out.put(e.getKey(), e.getValue());
                sizes.put(e.getKey(), WorkTreeIndex.NOT_THE_FILE);
            }
        }
        return out;
    }

    /** The head-tree files whose working copy has exactly the head's bytes, with their blobs. */
    static Map<String, ObjectId> cleanAtHead(Repository repo, Path workTree, ObjectId head) throws IOException {
        Map<String, ObjectId> clean = new LinkedHashMap<>();
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = new TreeWalk(repo);
                ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
            tw.addTree(rw.parseCommit(head).getTree());
            tw.setRecursive(true);
            while (tw.next()) {
                Path f = workTree.resolve(tw.getPathString());
                if (Files.isRegularFile(f)
                        && !Files.isSymbolicLink(f)
                        && fmt.idFor(Constants.OBJ_BLOB, Files.readAllBytes(f)).equals(tw.getObjectId(0))) {
                    clean.put(tw.getPathString(), tw.getObjectId(0));
                }
            }
        }
        return clean;
    }
}
