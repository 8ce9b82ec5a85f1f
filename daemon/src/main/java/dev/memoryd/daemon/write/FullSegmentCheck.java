package dev.memoryd.daemon.write;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Objects;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;

/**
 * Whether a git command rolled back the ledger segment before the active one, which the active
 * segment's own check cannot see: a {@code git reset --hard} that read the index before memoryd's
 * commit that began a new segment leaves that new segment alone (it is not in the index git works
 * from) and writes the older commit's version of everything else, the full segment included; when
 * its ref move then fails, nothing else in the chain tells. Told by the file and the index: the
 * full segment on disk is not the branch head's, and the index records those very bytes (git wrote
 * both; a hand edit leaves the index alone). A stat of the file is compared with the last one seen
 * in step, so a batch reads the file only after something wrote it.
 *
 * <p>Thread-safety: called on the writer thread only.
 */
final class FullSegmentCheck {
    private final WriterState s;
    private String seenPath;
    private Object seenStamp;

    FullSegmentCheck(WriterState s) {
        this.s = s;
    }

    /** The index to look at, read only when the file's version is not the head's. */
    interface IndexRead {
        DirCache get() throws IOException;
    }

    /**
     * Whether the segment before the active one holds, on disk and in the index, another version
     * than the branch head's. {@code index} gives the index when the caller holds its lock or
     * looked at it already, else null (it is then read as it is).
     */
    boolean rolledBack(IndexRead index) throws IOException {
        ObjectId head = s.git.head();
        if (s.index == null || head == null) {
            return false;
        }
        long first = s.chain.firstSeqOf(s.chain.activeSegmentPath());
        if (first <= 1) {
            return false;
        }
        String full = s.chain.segmentPath(first - 1);
        if (s.putBackNext.containsKey(full)) {
            // A human's commit changed it: memoryd's version is on disk, theirs at the head until memoryd's next
            // commit.
            return false;
        }
        Path file = s.files.root().resolve(full);
        Object stamp = stamp(file);
        if (full.equals(seenPath) && Objects.equals(stamp, seenStamp)) {
            return false;
        }
        ObjectId want = s.git.headBlobIds(List.of(full)).get(full);
        ObjectId disk = null;
        if (stamp != null) {
            try (ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
                disk = fmt.idFor(Constants.OBJ_BLOB, Files.readAllBytes(file));
            }
        }
        if (want == null || want.equals(disk)) {
            seenPath = full;
            seenStamp = stamp;
            return false;
        }
        DirCache dc = index != null
                ? index.get()
                : DirCache.read(
                        s.git.repository().getIndexFile(), s.git.repository().getFS());
        DirCacheEntry e = dc.getEntry(full);
        boolean gitWrote =
                disk == null ? e == null : e != null && e.getObjectId().equals(disk);
        if (!gitWrote) {
            seenPath = full; // someone's own edit: the ledger's other checks deal with it, not this one
            seenStamp = stamp;
        }
        return gitWrote;
    }

    /** Forgets the file last seen in step: the next check reads it again. */
    void forget() {
        seenPath = null;
        seenStamp = null;
    }

    private static Object stamp(Path file) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return List.of(String.valueOf(a.fileKey()), a.size(), a.lastModifiedTime());
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
