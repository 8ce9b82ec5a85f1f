package dev.memoryd.daemon.write;

/**
 * A batch failed before it was published and undoing it failed too: its ledger lines may still
 * be on disk, so its declarations may yet be recorded (the writer retries the undoing, and a
 * restart's recovery settles it either way). The cause is the batch's failure; the message says
 * why the undoing failed.
 */
final class UnsettledBatch extends Exception {
    private static final long serialVersionUID = 1L;

    UnsettledBatch(String whyNotUndone, Throwable cause) {
        super(whyNotUndone, cause);
    }
}
