package dev.memoryd.daemon.rpc;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Pause after a failed accept (out of file descriptors, say): the pause doubles with each
 * failure in a row, from 10 ms up to 1 s, and starts over after a success. Failures are reported
 * at most once per interval, as one line with their count, never one stack trace each.
 * Not thread-safe: the accept loop alone uses it.
 */
final class AcceptBackoff {
    static final long FIRST_MS = 10;
    static final long MAX_MS = 1_000;

    private final LongSupplier nanoClock;
    private final long reportEveryNanos;
    private long pauseMs;
    private long lastReport;
    private boolean reported;
    private int unreported;

    AcceptBackoff(LongSupplier nanoClock, long reportEveryMs) {
        this.nanoClock = nanoClock;
        this.reportEveryNanos = TimeUnit.MILLISECONDS.toNanos(reportEveryMs);
    }

    /**
     * Records a failure and returns how long to stop accepting, in ms. {@code report} receives a
     * line to log when one is due.
     */
    long failed(Exception e, java.util.function.Consumer<String> report) {
        pauseMs = pauseMs == 0 ? FIRST_MS : Math.min(MAX_MS, pauseMs * 2);
        unreported++;
        long now = nanoClock.getAsLong();
        if (!reported || now - lastReport >= reportEveryNanos) {
            report.accept("accepting connections failed " + unreported + (unreported == 1 ? " time" : " times")
                    + (reported ? " since the last report" : "") + " (last: " + e + "); pausing accepts for "
                    + pauseMs + " ms, up to " + MAX_MS + " ms while it persists");
            reported = true;
            lastReport = now;
            unreported = 0;
        }
        return pauseMs;
    }

    /** A connection was accepted: the next failure pauses briefly again. */
    void succeeded() {
        pauseMs = 0;
    }
}
