package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Segment file names: the padding that replaced {@code String.format} names files as it did. */
class LayoutTest {
    @Test
    void segmentFile_namesAsStringFormatDid() {
        Path dir = Path.of("ledger", "main");
        for (long seg : new long[] {0, 1, 9, 255, 256, 12345, 99_999_999L, 100_000_000L, 3_000_000_000L}) {
            Path want = dir.resolve(String.format("%04d", seg / Layout.SEGMENTS_PER_GROUP))
                    .resolve(String.format("%08d.ndjson", seg));
            assertEquals(want, Layout.segmentFile(dir, seg), "segment " + seg);
        }
    }
}
