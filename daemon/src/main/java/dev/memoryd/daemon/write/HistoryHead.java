package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.CommitFormat;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.ledger.BranchName;
import java.io.IOException;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * How far a chain is held by a branch's whole history, not only its first-parent line. A root's
 * own commits sit on its first-parent line, but on a plain {@code git clone} of a synced remote
 * the chain it writes (the branch's own, with no replica id) may have reached the branch through
 * a merge's second parent, when another replica pushed last. Those lines are published: their
 * declarations are in the tree already, and redoing them would apply each a second time.
 */
final class HistoryHead {
    private HistoryHead() {}

    /**
     * The highest line of {@code chain} that a commit reachable from {@code head} records in its
     * ledger-head trailer ({@code floor} when none records more), at most {@code ceiling}: the walk
     * stops there. A commit without a chain trailer records the chain named like the branch
     * ({@code chain}'s branch part). Walks every reachable commit, so call it only when the
     * first-parent line leaves lines unaccounted for.
     */
    static long seq(GitStore git, ObjectId head, BranchName chain, long floor, long ceiling) throws IOException {
        if (head == null || floor >= ceiling) {
            return floor;
        }
        String unqualified = chain.gitBranch().value();
        long best = floor;
        try (RevWalk rw = new RevWalk(git.repository())) {
            rw.markStart(rw.parseCommit(head));
            for (RevCommit c : rw) {
                String seq = null;
                String of = unqualified;
                for (Map.Entry<String, String> t : GitStore.parseTrailers(c.getFullMessage())) {
                    if (t.getKey().equals(CommitFormat.TRAILER_HEAD)) {
                        seq = t.getValue();
                    } else if (t.getKey().equals(CommitFormat.TRAILER_CHAIN)) {
                        of = t.getValue();
                    }
                }
                if (seq != null && of.equals(chain.value())) {
                    int colon = seq.indexOf(':');
                    best = Math.max(best, Long.parseLong(colon < 0 ? seq : seq.substring(0, colon)));
                    if (best >= ceiling) {
                        return ceiling;
                    }
                }
            }
        }
        return best;
    }
}
