package dev.memoryd.daemon.sync;

import java.util.List;
import java.util.Objects;

/**
 * What one {@link Sync#run} did: how many branches it fetched from {@code remote} and how many
 * chain files of other replicas it brought in, one row per branch (the remote's in name order,
 * then those it dropped, then local ones it lacks), and whether every branch merged and pushed.
 */
public record SyncReport(String remote, int fetchedBranches, int chainFiles, List<Row> branches, boolean ok) {
    public SyncReport {
        Objects.requireNonNull(remote, "remote");
        branches = List.copyOf(branches);
    }

    /**
     * One branch: what the sync did to it, then how its push went ({@code push}, null when it was
     * not a push's question), then for a branch deleted here whether the remote's copy was deleted
     * ({@code retirement}, null when none was tried).
     */
    public record Row(String branch, SyncOutcome outcome, Push push, Retirement retirement) {
        public Row {
            Objects.requireNonNull(branch, "branch");
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /** {@code status}: ok, up_to_date, not_pushed, failed, or the remote's refusal; {@code message} why, when not pushed. */
    public record Push(String status, String message) {
        public Push {
            Objects.requireNonNull(status, "status");
        }
    }

    /** The remote's copy of a branch deleted here: deleted, or kept ({@code kept} why). */
    public record Retirement(boolean deleted, String kept) {
        public Retirement {
            if (deleted == (kept != null)) {
                throw new IllegalArgumentException(
                        "a retirement either deleted the remote's copy or says why it stays");
            }
        }
    }
}
