package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a batch commits for the ledger: after each declaration's lines are prepared, the bytes of
 * every segment they touch as the segment will be once written. Those bytes must be the segment
 * files' bytes after the write, wherever the lines cross from one segment into the next.
 */
class PreparedSegmentsTest {
    private static final BranchName MAIN = BranchName.of("main");

    @TempDir
    Path tmp;

    @Test
    void eachDeclarationsSegments_areTheFilesAsWritten_acrossSegmentBoundaries() throws Exception {
        Path dir = tmp.resolve("ledger");
        Random r = new Random(20261129);
        try (Ledger l = Fixtures.open(dir, 4)) {
            Chain c = l.chain(MAIN);
            c.append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 2));
            c.sync();
            int seq = 2;
            for (int batch = 0; batch < 12; batch++) {
                Map<String, byte[]> last = new HashMap<>();
                int declarations = 1 + r.nextInt(4);
                for (int d = 0; d < declarations; d++) {
                    int lines = 1 + r.nextInt(6); // up to one and a half segments
                    c.prepare(Fixtures.drafts(Fixtures.ids(100 + batch * 10L + d), "main", seq, lines));
                    seq += lines;
                    Map<String, byte[]> segs = c.preparedSegments();
                    assertTrue(!segs.isEmpty(), "batch " + batch + ", declaration " + d);
                    last.putAll(segs);
                }
                c.writePrepared();
                c.sync();
                for (Map.Entry<String, byte[]> e : last.entrySet()) {
                    Path file = dir.getParent().resolve(e.getKey());
                    assertArrayEquals(
                            Files.readAllBytes(file),
                            e.getValue(),
                            "batch " + batch + ": " + e.getKey() + " as committed is not the file as written");
                }
            }
            assertEquals(seq, c.head().seq());
        }
        assertTrue(Verifier.verify(dir, Fixtures.keys(), Map.of()).ok());
    }
}
