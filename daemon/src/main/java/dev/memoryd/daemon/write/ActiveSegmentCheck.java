package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.write.BatchLocks.LockedOut;
import dev.memoryd.daemon.write.BatchLocks.RedoBatch;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.Chain;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The check of the chain's active segment on disk that comes before anything is appended to it
 * (the second thing a batch's {@link Admission} does, after capturing humans' commits): a segment
 * a git command rolled back is repaired or the batch redone, one a git merge left in conflict
 * between two of memoryd's own versions is put back, a tampered one is put back and reported.
 * Thread-safety: called on the writer thread only.
 */
final class ActiveSegmentCheck {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    private final WriterState s;

    ActiveSegmentCheck(WriterState s) {
        this.s = s;
    }

    /** How long a git command that rewrote the working tree is given to move the branch (git waits 100 ms for a ref lock). */
    private static final long REWRITE_GRACE_NANOS = Long.getLong("memoryd.rewriteGraceMs", 250) * 1_000_000;

    /**
     * Checks the chain's active segment on disk before anything is appended to it. An older
     * version there means a git command (a reset, a checkout) rewrote the working tree: holding
     * the index, the batch gives it time to move the branch (then the batch is redone and sees a
     * reset); when it failed to, the branch's files are put back ({@link
     * dev.memoryd.daemon.git.RolledBackTree}) instead of being taken for a human's edit; so too when
     * only the full segment before it was rolled back ({@link FullSegmentCheck}). Any other
     * difference is tampering: the chain's bytes are put back, the changed copy kept, a drift item
     * recorded with this batch and its declarations refused; nothing tampered is committed.
     */
    Optional<Failure> check(WriteBatch b, Instant now, BatchLocks locks) throws IOException, RedoBatch, LockedOut {
        Chain.DiskState state = s.chain.activeOnDisk();
        if (state == Chain.DiskState.INTACT && !s.fullSegment.rolledBack(null)) {
            return Optional.empty();
        }
        String segment = s.chain.activeSegmentPath();
        if (state == Chain.DiskState.ALTERED && s.index != null) {
            // A git command writes the working tree before the index, under the index lock: only
            // once it is done does the index say whether the segment is left in conflict.
            locks.lockIndex();
        }
        if (state == Chain.DiskState.ALTERED
                && s.index != null
                && MergedSegments.ownVersions(s, segment, s.chain::isActiveVersion)) {
            // A stash taken in git's unlocked moment held an older version of the segment, and its
            // pop conflicted with the newer one: the markers are git's, around memoryd's own lines.
            s.chain.restoreMergedActive();
            LOG.info("a git merge (a stash pop) left ledger segment " + segment + " in conflict between two"
                    + " versions memoryd wrote; put its lines back");
            return Optional.empty();
        }
        if (state == Chain.DiskState.ALTERED) {
            // Nothing is appended to, or committed from, a segment that is not what the chain wrote: the
            // chain's own bytes go back, the changed copy is kept as evidence, and a drift item says so.
            long line = s.chain.firstAlteredSeq();
            String kept = ".memoryd/tampered/" + segment.replace('/', '_') + "." + s.clock.millis();
            s.chain.restoreAlteredActive(s.files.root().resolve(kept));
            String reason =
                    "line " + line + " of ledger segment " + segment + " was changed on disk; memoryd put back the"
                            + " lines it wrote (the changed copy is kept in " + kept + ")";
            RepoPath path = RepoPath.of(segment);
            Mutation.Done d = new Mutation.Done(
                    Map.of(),
                    List.of(HumanCapture.flagged(
                            path,
                            s.ids.next().value(),
                            new dev.memoryd.grammar.human.HumanEdits.Breaks("ledger_tampered", reason, List.of()),
                            null,
                            new HumanSource.WorkTree(kept))),
                    true);
            WriteRequest req =
                    WriteRequest.of((src, t) -> d, "ledger segment " + segment + " was changed on disk", "memoryd");
            b.accept(new Pending(req, new CompletableFuture<>()), d, req, null, now); // recorded with this batch
            LOG.warning(reason);
            return Optional.of(new Failure(
                    ErrorReason.UNAVAILABLE,
                    "ledger segment " + segment + " was changed on disk"
                            + " (line " + line
                            + " is not what memoryd wrote); nothing was recorded: memoryd put its lines back, kept the"
                            + " changed copy in " + kept + " and opened a drift item; retry",
                    Failure.ordered("segment", segment, "line", line, "kept", kept, "recorded", false)));
        }
        if (s.index == null) {
            s.chain.restoreOlderActive(); // no working tree of its own: only the segment file can be behind
            return Optional.empty();
        }
        // The git command that wrote the older tree may be waiting for the ref lock this batch holds
        // (git waits 100 ms for a ref lock). Holding the index keeps a human's commit from recording
        // the rolled-back files meanwhile; the ref lock is let go so the command can finish.
        locks.lockIndex();
        s.git.releaseRef();
        long deadline = System.nanoTime() + REWRITE_GRACE_NANOS;
        while (java.util.Objects.equals(s.git.refNow(), s.git.head()) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while waiting for a git command");
            }
        }
        if (!s.git.holdRef(locks.waitMs)) {
            throw new LockedOut(s.git.refLockFile());
        }
        if (!java.util.Objects.equals(s.git.refNow(), s.git.head())) {
            throw new RedoBatch(); // it moved the branch: the next try sees a reset, not a rewrite
        }
        // The branch never moved: the git command failed half-way. What it wrote is not a human's edit.
        dev.memoryd.daemon.git.WorkTreeIndex.Held idx = locks.index;
        Map<String, ObjectId> repaired =
                dev.memoryd.daemon.git.RolledBackTree.repair(s.git, s.files.root(), idx.cache());
        Map<String, Long> sizes = new HashMap<>();
        if (s.chain.activeOnDisk() == Chain.DiskState.OLDER) {
            s.chain.restoreOlderActive();
        }
        idx.note(repaired, sizes);
        LOG.warning("a git command rewrote the working tree without moving branch " + s.branch.value()
                + "; put back the branch's version of " + repaired.keySet());
        return Optional.empty();
    }
}
