package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ReflogEntry;
import org.eclipse.jgit.lib.ReflogReader;

/**
 * Undoes a race inside git: {@code git reset --hard HEAD} (which {@code git stash} runs) resolves
 * HEAD when it starts and moves the branch to it when it ends, comparing against the branch as
 * it is then, so commits memoryd made in between are taken off the branch although no one asked
 * for any move ("reset: moving to HEAD" can only mean "stay"). Told by the branch's reflog: its
 * last entry is that reset, from memoryd's last commit to an ancestor of it, and the branch is
 * still there. The undoing puts back memoryd's files that the reset rewrote (where the working
 * tree holds the older version git wrote; anything else is someone's own edit) and moves the
 * branch back.
 *
 * <p>Runs on the writer thread holding the index and ref locks.
 */
public final class StaleReset {
    static final String MESSAGE = "reset: moving to HEAD";

    private StaleReset() {}

    /** Whether the branch was moved from {@code recorded} to {@code now} by such a reset, and nothing since. */
    public static boolean tookOff(GitStore git, ObjectId recorded, ObjectId now) throws IOException {
        ReflogReader log = git.repository().getReflogReader(Constants.R_HEADS + git.branch());
        ReflogEntry last = log == null ? null : log.getLastEntry();
        return last != null
                && MESSAGE.equals(last.getComment().strip())
                && last.getOldId().equals(recorded)
                && last.getNewId().equals(now)
                && !now.equals(recorded)
                && git.isAncestor(now, recorded);
    }

    /**
     * Puts back {@code recorded}'s version of every file that differs between the two commits and
     * that holds {@code now}'s version on disk, then moves the branch back to {@code recorded}.
     * Returns the files put back with their blobs (for the index).
     */
    public static Map<String, ObjectId> undo(GitStore git, Path root, DirCache index, ObjectId recorded, ObjectId now)
            throws IOException {
        Map<String, ObjectId> restored = new LinkedHashMap<>();
        try (ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
            for (String path : git.changedPaths(now, recorded, p -> true)) {
                Optional<byte[]> want = git.read(recorded, path);
                Optional<byte[]> older = git.read(now, path);
                Path f = root.resolve(path);
                Optional<byte[]> disk = Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                        ? Optional.of(Files.readAllBytes(f))
                        : Optional.empty();
                boolean gitWrote = older.isPresent()
                        ? disk.isPresent() && java.util.Arrays.equals(disk.get(), older.get())
                        : disk.isEmpty();
                if (!gitWrote || want.isEmpty()) {
                    continue;
                }
                Files.createDirectories(f.getParent());
                Path tmp = f.resolveSibling(f.getFileName() + ".memoryd-repair");
                Files.write(tmp, want.get());
                try (java.nio.channels.FileChannel ch =
                        java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
                Files.move(
                        tmp,
                        f,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                restored.put(path, fmt.idFor(Constants.OBJ_BLOB, want.get()));
            }
        }
        git.restoreRef(now, recorded).orThrow();
        return restored;
    }
}
