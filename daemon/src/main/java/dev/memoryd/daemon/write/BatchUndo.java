package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.Failure;
import java.io.IOException;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Undoing a batch that failed before it published: its rollback run at once, or, when that
 * fails too, kept and retried (with back-off) before the next batch, which is refused until the
 * ledger, the files and the branch agree again.
 *
 * <p>Thread-safety: called on the writer thread only.
 */
final class BatchUndo {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    private final WriterState s;
    /** A batch that failed and whose undoing failed too: what is left to undo. */
    private BatchRollback pendingRollback;

    BatchUndo(WriterState s) {
        this.s = s;
    }

    /**
     * Finishes undoing a failed batch whose rollback failed (with back-off between tries): empty
     * once the ledger, the files and the branch agree again; else the refusal for this batch.
     */
    Optional<Failure> settle() {
        BatchRollback r = pendingRollback;
        if (r == null) {
            return Optional.empty();
        }
        if (!s.health.mayRetry()) {
            return Optional.of(s.health.refusal());
        }
        try {
            r.run();
            pendingRollback = null;
            s.health.succeeded();
            LOG.info("the failed batch is undone; writes resume");
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            s.health.unsettled(e);
            return Optional.of(s.health.refusal());
        }
    }

    /**
     * Forgets the journal of a batch that is given up before any of its lines reached the segment:
     * true once nothing of the batch is left for a restart to redo; false (with the failure added
     * to {@code cause}) when the journal could not be cleared, so the batch must be undone in full.
     */
    boolean forgetJournal(boolean journaled, Exception cause) {
        if (!journaled) {
            return true;
        }
        try {
            s.journal.clear(true);
            return true;
        } catch (IOException e) {
            cause.addSuppressed(e);
            return false;
        }
    }

    /**
     * Undoes a batch that never published: null once undone (nothing recorded, the cause is what
     * to throw), else an {@link UnsettledBatch} to throw, the undoing having failed too.
     */
    UnsettledBatch undo(BatchRollback rollback, Exception cause) {
        try {
            rollback.run();
            LOG.log(Level.WARNING, "a batch failed and was undone; nothing of it is recorded", cause);
            return null;
        } catch (IOException | RuntimeException again) {
            cause.addSuppressed(again);
            pendingRollback = rollback;
            LOG.log(Level.SEVERE, "a batch failed and could not be undone; writes wait until it is", cause);
            return new UnsettledBatch(WriterHealth.describe(again), cause);
        }
    }
}
