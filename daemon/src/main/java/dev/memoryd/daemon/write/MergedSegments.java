package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.OlderVersion;
import dev.memoryd.ledger.Chain;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;

/**
 * Puts back, before each batch and when writes pause, the chain's last segments that a git merge
 * (a {@code stash pop} of a stash taken in git's unlocked moment) left in conflict between two
 * versions memoryd wrote. The next batch does this for the active segment ({@link
 * ActiveSegmentCheck}); a full segment is never written again, and the active one waits for the
 * next write, so without this their conflict markers and {@code UU} in {@code git status} would
 * stay until someone resolved memoryd's own lines by hand; waiting for writes to pause would leave
 * them, while agents stream, for a human's next {@code git add -A && git commit} to take into the
 * ledger. A conflict with anything else on a side is left as it is, for a human. Thread-safety:
 * called on the writer thread only, while no batch runs.
 */
final class MergedSegments {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    private final WriterState s;

    MergedSegments(WriterState s) {
        this.s = s;
    }

    /**
     * Of {@code conflicted} (segment paths the index holds in conflict), puts back those whose
     * both sides are versions of the branch head's text of them, and returns their head blobs,
     * for the index.
     */
    Map<String, ObjectId> putBack(List<String> conflicted) throws IOException {
        Map<String, ObjectId> out = new LinkedHashMap<>();
        if (conflicted.isEmpty() || s.git.head() == null) {
            return out;
        }
        try (ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
            for (String path : conflicted) {
                Optional<byte[]> head = s.git.read(s.git.head(), path);
                if (head.isEmpty() || !ownVersions(s, path, b -> isPrefix(b, head.get()))) {
                    continue;
                }
                if (path.equals(s.chain.activeSegmentPath())) {
                    if (s.chain.activeOnDisk() == Chain.DiskState.ALTERED) {
                        s.chain.restoreMergedActive();
                    }
                } else {
                    ResetRecovery.writeAtomically(s.files.root().resolve(path), head.get());
                }
                out.put(path, fmt.idFor(Constants.OBJ_BLOB, head.get()));
                LOG.info("a git merge (a stash pop) left ledger segment " + path + " in conflict between two"
                        + " versions memoryd wrote; put its lines back");
            }
        }
        return out;
    }

    /**
     * Whether the index holds {@code path} in conflict with both sides versions memoryd wrote
     * ({@code version} tells one); the one rule for the active segment and the ones before it.
     */
    static boolean ownVersions(WriterState s, String path, Predicate<byte[]> version) throws IOException {
        Optional<List<byte[]>> sides = OlderVersion.conflictSides(s.git, path);
        return sides.isPresent() && sides.get().stream().allMatch(version);
    }

    private static boolean isPrefix(byte[] part, byte[] whole) {
        return part.length <= whole.length && Arrays.equals(part, 0, part.length, whole, 0, part.length);
    }
}
