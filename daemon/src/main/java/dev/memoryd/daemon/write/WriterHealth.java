package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/**
 * The writer's state as clients and {@code ping} see it: {@code ok}; {@code failing} after a
 * batch failed and was undone (the next batch is the retry); {@code unsettled} while a failed
 * batch could not be undone yet, when tries are spaced by a back-off (50 ms doubling to 5 s)
 * and batches in between are refused at once; {@code stopped} after an error the writer cannot
 * survive. A success returns to {@code ok}.
 *
 * <p>Thread-safe: written by the writer thread, read by any.
 */
public final class WriterHealth {
    private static final long FIRST_BACKOFF_MS = 50;
    private static final long MAX_BACKOFF_MS = 5_000;

    /** What {@code ping} reports: {@code state}, the last failure and when it was. */
    public record Snapshot(String state, String lastError, Instant lastErrorAt, long failures) {
        Snapshot stopped(String why) {
            return new Snapshot("stopped", why, lastErrorAt, failures);
        }

        /** The wire form: {@code {state, failures, last_error?, last_error_at?}}. */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("state", state);
            m.put("failures", failures);
            if (lastError != null) {
                m.put("last_error", lastError);
                m.put("last_error_at", lastErrorAt == null ? null : lastErrorAt.toString());
            }
            return m;
        }
    }

    private final Clock clock;
    private volatile Snapshot now = new Snapshot("ok", null, null, 0);
    private long backoffMs = FIRST_BACKOFF_MS;
    private long nextTryNanos;

    WriterHealth(Clock clock) {
        this.clock = clock;
    }

    Snapshot snapshot() {
        return now;
    }

    synchronized void succeeded() {
        if (!now.state().equals("ok")) {
            now = new Snapshot("ok", now.lastError(), now.lastErrorAt(), now.failures());
        }
        backoffMs = FIRST_BACKOFF_MS;
    }

    /** A batch failed and was undone. */
    synchronized void failed(Throwable cause) {
        now = new Snapshot("failing", describe(cause), clock.instant(), now.failures() + 1);
    }

    /** A failed batch is not undone yet; the next try waits for the back-off. */
    synchronized void unsettled(Throwable cause) {
        now = new Snapshot("unsettled", describe(cause), clock.instant(), now.failures() + 1);
        nextTryNanos = System.nanoTime() + backoffMs * 1_000_000;
        backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    }

    /** Whether the back-off since the last failed try has passed. */
    synchronized boolean mayRetry() {
        return System.nanoTime() - nextTryNanos >= 0;
    }

    /** The refusal of a batch that arrives while a failed one is not undone. */
    Failure refusal() {
        Snapshot s = now;
        return new Failure(
                ErrorReason.UNAVAILABLE,
                "the writer is settling a failed write (" + s.lastError() + "); nothing was recorded: retry shortly",
                Failure.ordered("cause", String.valueOf(s.lastError()), "recorded", false));
    }

    /** One line naming a failure and its cause (e.g. "No space left on device" for a full disk). */
    static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String msg = root.getMessage();
        String kind = root instanceof java.nio.file.FileSystemException fse && fse.getReason() != null
                ? fse.getReason()
                : root.getClass().getSimpleName();
        if (root instanceof java.nio.file.FileSystemException fse) {
            return kind + ": " + fse.getFile();
        }
        return msg == null ? kind : kind + ": " + msg;
    }
}
