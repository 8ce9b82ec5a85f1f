package dev.memoryd.daemon.git;

import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Head;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Reads the ledger heads memoryd's commits record in their {@link CommitFormat} trailers: which
 * chain line a branch has published, and which commit published it. Walks first parents only
 * (a merge's second parent is another branch's history). Stateless; reads through the store's
 * repository, so safe from any thread that may read it.
 */
public final class LedgerTrailers {
    private LedgerTrailers() {}

    /**
     * The newest first-parent commit memoryd made for chain {@code chainName} (one that carries its
     * ledger head): what the recorded texts of memory files are. Commits above it are humans' (or a
     * sync's, which changed no memory file).
     */
    public static Optional<ObjectId> recordedCommit(GitStore git, BranchName chainName) throws IOException {
        return lastLedgerTrailer(git, git.head(), chainName).map(Map.Entry::getKey);
    }

    /**
     * The newest first-parent commit from {@code start} with a {@code Memoryd-Ledger-Head} trailer
     * of chain {@code chainName} (any chain when null), and the trailer's value.
     */
    private static Optional<Map.Entry<ObjectId, String>> lastLedgerTrailer(
            GitStore git, ObjectId start, BranchName chainName) throws IOException {
        return ledgerTrailer(
                        git,
                        start,
                        chainName == null ? null : chainName.gitBranch().value(),
                        of -> chainName == null || chainName.value().equals(of))
                .map(t -> Map.entry(t.commit(), t.head()));
    }

    /** A ledger-head trailer: the commit, the chain it names, its {@code seq:line_hash}. */
    private record LedgerTrailer(ObjectId commit, String chain, String head) {}

    /** The chain line a commit records as its ledger head, and the commit that recorded it. */
    public record RecordedHead(BranchName chain, Head head, ObjectId commit) {}

    /**
     * Walks first parents from {@code start} to the first commit whose ledger-head trailer's chain
     * {@code wanted} accepts; a commit without a {@value CommitFormat#TRAILER_CHAIN} trailer records chain
     * {@code unqualified} (the branch walked).
     */
    private static Optional<LedgerTrailer> ledgerTrailer(
            GitStore git, ObjectId start, String unqualified, java.util.function.Predicate<String> wanted)
            throws IOException {
        ObjectId c = start;
        try (org.eclipse.jgit.revwalk.RevWalk rw = new org.eclipse.jgit.revwalk.RevWalk(git.repository())) {
            while (c != null) {
                org.eclipse.jgit.revwalk.RevCommit rc = rw.parseCommit(c);
                String head = null;
                String of = unqualified;
                for (Map.Entry<String, String> t : GitStore.parseTrailers(rc.getFullMessage())) {
                    if (t.getKey().equals(CommitFormat.TRAILER_HEAD)) {
                        head = t.getValue();
                    } else if (t.getKey().equals(CommitFormat.TRAILER_CHAIN)) {
                        of = t.getValue();
                    }
                }
                if (head != null && wanted.test(of)) {
                    return Optional.of(new LedgerTrailer(rc.copy(), of, head));
                }
                c = rc.getParentCount() == 0 ? null : rc.getParent(0);
            }
        }
        return Optional.empty();
    }

    private static Head parseHead(String v) {
        int colon = v.indexOf(':');
        return new Head(Long.parseLong(v.substring(0, colon)), v.substring(colon + 1));
    }

    /**
     * The chain and head recorded by {@code commit} or its nearest first-parent ancestor that
     * records one, whichever chain it is (for links to another branch's or replica's chain); a
     * commit with no {@value CommitFormat#TRAILER_CHAIN} trailer records the chain named {@code branch}.
     */
    public static Optional<RecordedHead> ledgerHeadAt(GitStore git, ObjectId commit, String branch) throws IOException {
        return ledgerTrailer(git, commit, branch, of -> true)
                .map(t -> new RecordedHead(new BranchName(t.chain()), parseHead(t.head()), t.commit()));
    }

    /**
     * The head of chain {@code chainName} (any chain when null) recorded by {@code commit} or its
     * nearest first-parent memoryd ancestor that records that chain.
     */
    public static Optional<Head> publishedHeadAt(GitStore git, ObjectId commit, BranchName chainName)
            throws IOException {
        return lastLedgerTrailer(git, commit, chainName).map(t -> parseHead(t.getValue()));
    }
}
