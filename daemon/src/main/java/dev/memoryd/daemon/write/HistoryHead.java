package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.CommitFormat;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.ledger.BranchName;
import java.io.IOException;
import java.util.List;
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
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private HistoryHead() {}

    /**
     * The highest line of {@code chain} that {@code commit}'s tree holds as memoryd wrote it: the
     * last whole line of the chain's newest segment file there, when it is the chain's own line of
     * that seq (the same line hash, whose HMAC covers every line before it); {@code floor} when the
     * tree holds no later line of the chain, at most {@code ceiling}. A commit that git made from
     * an index holding memoryd's last writes ({@code git commit --amend} of memoryd's commit with a
     * message of the human's, a {@code reset --soft} and commit, a squash) holds their lines and
     * their files without memoryd's trailer: those declarations are on the branch, and redoing
     * them would apply each a second time.
     */
    static long inTree(GitStore git, ObjectId commit, dev.memoryd.ledger.Chain chain, long floor, long ceiling)
            throws IOException {
        if (commit == null || floor >= ceiling) {
            return floor;
        }
        List<String> segments = git.listFiles(commit, "ledger/" + chain.branch().value());
        String newest = segments.stream()
                .filter(p -> p.endsWith(".ndjson"))
                .max(java.util.Comparator.naturalOrder())
                .orElse(null);
        if (newest == null) {
            return floor;
        }
        byte[] b = git.read(commit, newest).orElse(new byte[0]);
        int end = b.length;
        while (end > 0 && b[end - 1] != '\n') {
            end--; // a line cut short is no line
        }
        if (end == 0) {
            return floor;
        }
        int start = end - 1;
        while (start > 0 && b[start - 1] != '\n') {
            start--;
        }
        dev.memoryd.ledger.Event there;
        try {
            there = dev.memoryd.ledger.Event.fromJson(JSON.readTree(b, start, end - start));
        } catch (IOException | RuntimeException notALine) {
            return floor; // not a line memoryd wrote: nothing is held by it
        }
        long seq = there.seq();
        if (seq <= floor || seq > ceiling || there.integrity() == null) {
            return floor;
        }
        java.util.Iterator<dev.memoryd.ledger.Event> ours = chain.read(seq);
        if (!ours.hasNext()) {
            return floor;
        }
        dev.memoryd.ledger.Event mine = ours.next();
        return mine.seq() == seq && there.integrity().equals(mine.integrity()) ? seq : floor;
    }

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
