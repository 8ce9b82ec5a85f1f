package dev.memoryd.ledger;

import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Where {@link Verifier} finds a chain that a link names but the ledger directory does not hold
 * far enough (a merged branch's chain in a clone, where only the branch merged into was checked
 * out): the chain as the tree of the commit the linking line names holds it. A
 * {@code branch_merge} line names the commit it merged ({@code payload.merge.from_commit}), a
 * {@code branch_fork} line the commit it started from ({@code payload.fork.from_commit}). That
 * commit records the linked line as its ledger head, so its tree holds the chain up to that line,
 * and Git keeps it wherever the linking line is (a merge commit's second parent, a fork commit's
 * parent): every clone has it. The ledger module knows no Git; the caller reads the tree.
 */
@FunctionalInterface
public interface CommittedChains {
    /** No history to look in: a link must land in the ledger directory. */
    CommittedChains NONE = (commit, chain) -> new TreeMap<>();

    /**
     * The segment files {@code ledger/<chain>/<4 digits>/<8 digits>.ndjson} of {@code chain} in
     * the tree of {@code commit} (a full commit id): segment number → the file's bytes. Empty when
     * the repository lacks the commit (a shallow clone) or its tree lacks the chain.
     *
     * @throws java.io.UncheckedIOException if the repository cannot be read
     */
    SortedMap<Long, byte[]> segments(String commit, BranchName chain);
}
