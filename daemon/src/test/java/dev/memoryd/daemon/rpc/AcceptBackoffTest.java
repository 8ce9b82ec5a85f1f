package dev.memoryd.daemon.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Accept failures pause accepting for longer and longer, and are reported once per interval. */
class AcceptBackoffTest {
    long now;
    final List<String> reports = new ArrayList<>();
    final AcceptBackoff b = new AcceptBackoff(() -> now, 10_000);
    final IOException emfile = new IOException("Too many open files");

    @Test
    void pauses_doubleUpToOneSecond_andStartOverAfterASuccess() {
        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            pauses.add(b.failed(emfile, reports::add));
        }
        assertEquals(List.of(10L, 20L, 40L, 80L, 160L, 320L, 640L, 1000L, 1000L), pauses);
        b.succeeded();
        assertEquals(10L, b.failed(emfile, reports::add));
    }

    @Test
    void failures_areReportedOncePerInterval_withTheirCount() {
        for (int i = 0; i < 1000; i++) {
            b.failed(emfile, reports::add);
            now += TimeUnit.MILLISECONDS.toNanos(25); // 25 s in all
        }
        assertEquals(3, reports.size(), reports.toString()); // at 0 s, 10 s and 20 s
        assertTrue(reports.get(0).contains("1 time") && reports.get(0).contains("Too many open files"), reports.get(0));
        assertTrue(reports.get(1).contains("400 times since the last report"), reports.get(1));
    }
}
