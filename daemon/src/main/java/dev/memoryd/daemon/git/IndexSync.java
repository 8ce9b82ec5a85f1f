package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
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
        Map<String, ObjectId> still = stillAt(workTree, blobs, sizes);
        try (WorkTreeIndex.Held h = held.get()) {
            h.record(still, sizes, removed, modeOf);
        }
        return true;
    }

    /**
     * The entries of {@code blobs} that may still be recorded, with their sizes put in {@code
     * sizes}: those whose working-tree file holds exactly that blob now (recorded clean), and those
     * whose file a human changed since (size {@link WorkTreeIndex#NOT_THE_FILE}: the index follows
     * the branch and {@code git status} shows the human's change). A missing file is left out.
     */
    static Map<String, ObjectId> stillAt(Path workTree, Map<String, ObjectId> blobs, Map<String, Long> sizes)
            throws IOException {
        Map<String, ObjectId> out = new LinkedHashMap<>();
        try (ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
            for (Map.Entry<String, ObjectId> e : blobs.entrySet()) {
                Path f = workTree.resolve(e.getKey());
                if (!Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                byte[] now = Files.readAllBytes(f);
                out.put(e.getKey(), e.getValue());
                sizes.put(
                        e.getKey(),
                        fmt.idFor(Constants.OBJ_BLOB, now).equals(e.getValue())
                                ? (long) now.length
                                : WorkTreeIndex.NOT_THE_FILE);
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
