package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Head;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Puts back, while the writer runs, memoryd's declarations that a human's git command took off
 * the branch: a {@code git reset} (or {@code checkout -B}, {@code branch -f}) to a commit that
 * does not contain memoryd's last one. The ledger is the record of every acknowledged
 * declaration, so none of them may leave the branch except by a human's own commit; the branch
 * the human chose is kept, and the declarations it lacks are redone on top of it, one commit each
 * as the writer made them ({@link RollForward}, what a restart does). Humans' changes that the
 * moved branch holds are then captured by the caller like any commit made with git.
 *
 * <p>The ledger is tracked, so the move rolled this chain's segment files back to the moved-to
 * commit's copies: they are put back from memoryd's last commit (older segments) and from the
 * chain's own bytes (the active one) first, and only where the file on disk is a prefix of
 * memoryd's, i.e. an older version of it.
 *
 * <p>Runs on the writer thread, holding the index lock and the branch's ref lock; the ref lock is
 * held again on return. Working-tree writers only: a branch not checked out keeps refusing writes
 * until its ref is back (its files are not on disk to be redone onto).
 */
final class TakenOff {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    /** What became of the moved branch. */
    sealed interface Outcome {}

    /** The branch holds every line of the chain (nothing was taken off, or it is back): nothing redone. */
    record NothingLost() implements Outcome {}

    /**
     * The chain's later declarations were redone on top of the moved branch, ending at {@code tip};
     * {@code written}: the files they wrote to the working tree, with their blobs (for the index).
     */
    record Redone(ObjectId tip, int declarations, long fromSeq, Map<String, ObjectId> written) implements Outcome {}

    /** They could not be redone there (why); nothing was changed but the restored segment files. */
    record CannotRedo(String why) implements Outcome {}

    private final WriterState s;

    TakenOff(WriterState s) {
        this.s = s;
    }

    /**
     * Redoes onto {@code ref} (the branch as a git command left it) the declarations after the
     * line it publishes. {@code recorded} is memoryd's last commit, which holds every line.
     */
    Outcome redo(ObjectId recorded, ObjectId ref, long refWaitMs) throws IOException {
        GitStore git = s.git;
        Chain chain = s.chain;
        long durable = chain.head().seq();
        long published = publishedAt(ref, durable);
        if (published >= durable) {
            return published == durable
                    ? new NothingLost()
                    : new CannotRedo("the moved branch records ledger line " + published + " of chain "
                            + chain.branch().value() + ", past its last line " + durable);
        }
        List<String> restored = ResetRecovery.restoreFrom(git, s.files.root(), chain.branch(), recorded);
        Chain.DiskState active = chain.activeOnDisk();
        if (active == Chain.DiskState.OLDER) {
            chain.restoreOlderActive();
        } else if (active == Chain.DiskState.ALTERED) {
            return new CannotRedo(
                    "ledger segment " + chain.activeSegmentPath() + " holds lines that are not what memoryd wrote");
        }
        git.headAt(ref); // read under the ref lock: JGit's cached view of the ref may lag a fresh move
        RollForward.Result r;
        try {
            r = new RollForward(chain, git, s.files, s.replayers, s.chainTrailer()).run(published);
        } catch (IllegalStateException e) {
            git.reloadHead();
            return new CannotRedo(e.getMessage());
        } finally {
            if (!git.holdRef(refWaitMs)) {
                LOG.warning("the ref lock of " + s.branch.value() + " was taken by another command after a redo");
            }
        }
        ObjectId tip = git.head();
        LOG.warning("a git command moved branch " + s.branch.value() + " to " + ref.name()
                + ", which lacked memoryd's commits after ledger line " + published + "; redid "
                + r.groups().size() + " declaration(s) on top of it (now " + tip.name() + ")"
                + (restored.isEmpty() ? "" : "; ledger files put back: " + restored));
        return new Redone(tip, r.groups().size(), published + 1, r.written());
    }

    /**
     * The last line of this writer's chain that {@code commit}'s history publishes, or its tree
     * holds (a commit git made from an index holding memoryd's last writes), at most {@code durable}.
     */
    private long publishedAt(ObjectId commit, long durable) throws IOException {
        long published = LedgerTrailers.publishedHeadAt(s.git, commit, s.chain.branch())
                .map(Head::seq)
                .orElse(0L);
        if (published < durable) {
            published = HistoryHead.seq(s.git, commit, s.chain.branch(), published, durable);
        }
        return HistoryHead.inTree(s.git, commit, s.chain, published, durable);
    }

    /** The message of a refusal when the declarations could not be redone. */
    static String refusal(String branch, ObjectId ref, ObjectId recorded, String why) {
        return "branch " + branch + " was moved to " + ref.name() + ", which does not contain memoryd's last commit "
                + recorded.name() + " (a git reset?), and memoryd could not redo its later declarations on top ("
                + why + "); nothing was written. Move the branch back (git reset --hard " + recorded.name()
                + "), or restart memoryd to redo them on top of the moved branch";
    }

    static Map<String, Object> refusalData(ObjectId ref, ObjectId recorded) {
        return dev.memoryd.daemon.api.Failure.ordered("branch_head", ref.name(), "recorded_commit", recorded.name());
    }
}
