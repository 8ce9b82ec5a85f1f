package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Repairs a working tree that a git command rewrote to another commit's files without moving the
 * branch: a {@code git reset --hard} or {@code checkout} whose ref update failed (git writes the
 * files and the index first, and loses the race for the ref to memoryd's next commit). Such a
 * file is told from a human's edit by the index: git recorded the bytes it wrote there, an editor
 * does not. Each such file gets the branch head's version back (and the index its entry), so the
 * rolled-back text is never taken for a human's edit; a file whose disk bytes are not what the
 * index records is someone's own edit and is left alone. An index holding a conflict is a
 * merge's result (a {@code stash pop} that conflicted, a {@code merge}), never a reset's, which
 * writes the whole index without one: what such a command wrote, the cleanly merged files it
 * staged among them, is a change someone asked for, so nothing is put back.
 *
 * <p>Runs on the writer thread under the index lock.
 */
public final class RolledBackTree {
    private RolledBackTree() {}

    /** Restores what it finds; returns each repaired path with the blob now there (for the index). */
    public static Map<String, ObjectId> repair(GitStore git, Path root, DirCache index) throws IOException {
        Map<String, ObjectId> repaired = new LinkedHashMap<>();
        ObjectId head = git.head();
        if (head == null || unmerged(index)) {
            return repaired;
        }
        try (RevWalk rw = new RevWalk(git.repository());
                TreeWalk tw = new TreeWalk(git.repository());
                ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
            tw.addTree(rw.parseCommit(head).getTree());
            tw.setRecursive(true);
            while (tw.next()) {
                FileMode mode = tw.getFileMode(0);
                if (mode != FileMode.REGULAR_FILE && mode != FileMode.EXECUTABLE_FILE) {
                    continue;
                }
                String path = tw.getPathString();
                ObjectId want = tw.getObjectId(0);
                Path f = root.resolve(path);
                DirCacheEntry e = index.getEntry(path);
                boolean present = Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS);
                ObjectId disk = present ? fmt.idFor(Constants.OBJ_BLOB, Files.readAllBytes(f)) : null;
                if (want.equals(disk)) {
                    continue;
                }
                boolean gitWrote = present ? e != null && e.getObjectId().equals(disk) : e == null;
                if (!gitWrote) {
                    continue;
                }
                byte[] bytes = git.repository().open(want, Constants.OBJ_BLOB).getBytes();
                Files.createDirectories(f.getParent());
                Path tmp = f.resolveSibling(f.getFileName() + ".memoryd-repair");
                Files.write(tmp, bytes);
                try (java.nio.channels.FileChannel ch =
                        java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
                Files.move(
                        tmp,
                        f,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                repaired.put(path, want);
            }
        }
        return repaired;
    }

    private static boolean unmerged(DirCache index) {
        for (int i = 0; i < index.getEntryCount(); i++) {
            if (index.getEntry(i).getStage() != DirCacheEntry.STAGE_0) {
                return true;
            }
        }
        return false;
    }
}
