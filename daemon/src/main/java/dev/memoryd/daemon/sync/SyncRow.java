package dev.memoryd.daemon.sync;

/**
 * One branch's row while a sync is under way: its outcome first, then its push, then its
 * retirement on the remote, each set once by the step that decides it.
 *
 * <p>Not thread-safe: a sync runs on one thread, one at a time per root.
 */
final class SyncRow {
    final String branch;
    final SyncOutcome outcome;
    SyncReport.Push push;
    SyncReport.Retirement retirement;

    SyncRow(String branch, SyncOutcome outcome) {
        this.branch = branch;
        this.outcome = outcome;
    }

    SyncReport.Row row() {
        return new SyncReport.Row(branch, outcome, push, retirement);
    }

    /** Whether a branch waits for the user (conflicts, a spec rule) or failed: not pushed, and the sync is not ok. */
    static boolean waits(SyncOutcome o) {
        return o instanceof SyncOutcome.Failed || (o instanceof SyncOutcome.Merge m && m.unmerged());
    }
}
