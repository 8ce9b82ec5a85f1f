package dev.memoryd.daemon.sync;

import dev.memoryd.daemon.branch.SyncMerged;
import java.util.Objects;

/** What one sync did to one branch before pushing: merged it, started it, deleted it, or left it. */
public sealed interface SyncOutcome {
    /** The remote's head merged into the local branch, as {@link SyncMerged} says. */
    record Merge(SyncMerged merged) implements SyncOutcome {
        public Merge {
            Objects.requireNonNull(merged, "merged");
        }

        /** Whether the merge waits for the user (conflicts, a spec rule): then the branch is not pushed. */
        public boolean unmerged() {
            return merged instanceof SyncMerged.Conflicted || merged instanceof SyncMerged.SpecViolation;
        }
    }

    /**
     * A branch the remote has and this root lacked, started at {@code commit}: with this root's
     * chain ({@code eventId} its fork), or for a proposal branch, which has no chain, as a bare ref
     * ({@code refUpdate} how the ref moved). Exactly one of the two.
     */
    record Created(String commit, String eventId, String refUpdate) implements SyncOutcome {
        public Created {
            Objects.requireNonNull(commit, "commit");
            if ((eventId == null) == (refUpdate == null)) {
                throw new IllegalArgumentException("a created branch has a fork event or a bare ref update, not both");
            }
        }
    }

    /** The branch could not be merged, started or deleted: {@code error}; {@code retiredThere} the remote's retired head, if any. */
    record Failed(String error, String retiredThere) implements SyncOutcome {
        public Failed {
            Objects.requireNonNull(error, "error");
        }
    }

    /** Deleted on this root, so not brought back; whether the remote's copy goes too is the row's retirement. */
    record DeletedHere(String message) implements SyncOutcome {}

    /** Deleted on the remote (retired at {@code retiredThere}) but checked out here: kept, not pushed. */
    record KeptCheckedOut(String retiredThere, String message) implements SyncOutcome {}

    /** Deleted on the remote and here too, as {@code branch.delete} does. */
    record DeletedByRemote(String retiredThere, String message, String commit, String eventId, String retiredRef)
            implements SyncOutcome {
        public DeletedByRemote {
            Objects.requireNonNull(retiredThere, "retiredThere");
            Objects.requireNonNull(commit, "commit");
            Objects.requireNonNull(eventId, "eventId");
            Objects.requireNonNull(retiredRef, "retiredRef");
        }
    }

    /** Deleted on the remote, but this root holds work the deletion never saw: kept and pushed back. */
    record DeleteOverridden(String retiredThere, String message) implements SyncOutcome {}

    /** A local branch the remote does not have: only pushed. */
    record LocalOnly() implements SyncOutcome {}
}
