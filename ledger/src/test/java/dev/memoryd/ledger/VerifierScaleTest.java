package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures verify throughput on 100,000 lines of ~600 bytes (target: >= 100,000 lines/s) and
 * append throughput; writes the figures to target/ledger-throughput.txt.
 */
class VerifierScaleTest {
    private static final int LINES = 100_000;

    @TempDir
    Path tmp;

    /** A typical append_item event of about 600 bytes once stored. */
    static EventDraft compact(IdGenerator ids, int i) {
        com.fasterxml.jackson.databind.node.ObjectNode payload =
                com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        payload.put("item", "Noticed tension before the review " + i);
        return new EventDraft(
                ids.next().value(),
                "2025-01-02T03:04:05.123Z",
                "main",
                "agent",
                "alice",
                "part",
                "p1",
                "users/alice/parts/p1/profile.md",
                "append_item",
                "triggers",
                null,
                "b".repeat(64),
                payload,
                "observed " + i,
                List.of(),
                null,
                null);
    }

    @Test
    void verifiesAHundredThousandLines_andReportsThroughput() throws Exception {
        Path dir = tmp.resolve("ledger");
        long t0 = System.nanoTime();
        try (Ledger l = Fixtures.open(dir, LedgerOptions.DEFAULT_SEGMENT_LINES)) {
            Chain c = l.chain(BranchName.of("main"));
            IdGenerator ids = Fixtures.ids(1);
            for (int i = 0; i < LINES; i += 100) {
                List<EventDraft> batch = new java.util.ArrayList<>(100);
                for (int j = i; j < i + 100; j++) {
                    batch.add(compact(ids, j));
                }
                c.append(batch);
            }
        }
        double appendSecs = (System.nanoTime() - t0) / 1e9;
        long bytes;
        try (Stream<Path> s = Files.walk(dir)) {
            bytes = s.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
        VerifyResult r = null;
        double best = Double.MAX_VALUE;
        for (int run = 0; run < 3; run++) { // the first run includes JIT warm-up
            long s = System.nanoTime();
            r = Verifier.verify(dir, Fixtures.keys(), Map.of());
            best = Math.min(best, (System.nanoTime() - s) / 1e9);
        }
        assertTrue(r.ok(), r.message());
        assertEquals(LINES, r.lines());
        java.util.List<Long> told = new java.util.ArrayList<>();
        Verifier.verify(dir, Fixtures.keys(), Map.of(), told::add);
        assertEquals(
                LINES / Verifier.PROGRESS_EVERY + 1,
                told.size(),
                "progress every 50,000 lines and at the end: " + told);
        assertEquals((long) LINES, told.get(told.size() - 1));
        String report = String.format(
                "verify: %d lines, %.1f MB, avg %d bytes/line: %.0f lines/s, %.1f MB/s (best of 3)%n"
                        + "append: %.0f lines/s (batches of 100, no fsync)%n",
                LINES, bytes / 1e6, bytes / LINES, LINES / best, bytes / 1e6 / best, LINES / appendSecs);
        System.out.print(report);
        Path out = Path.of("target", "ledger-throughput.txt");
        if (Files.isDirectory(out.getParent())) {
            Files.writeString(out, report);
        }
        // No timing assertion: figures belong in docs/BENCHMARKS.md, measured by bin/memoryd bench.
    }
}
