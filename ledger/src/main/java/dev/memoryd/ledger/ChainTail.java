package dev.memoryd.ledger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a chain ends on disk, read at open from its last non-empty segment (plus any empty ones
 * after it): the head line, and the active segment's index and bytes when the head's segment is
 * not yet full. A torn final line is cut off by {@link SegmentLines#recoverTail} on the way.
 *
 * @param last the last line, or null for a chain with no lines
 * @param activeSeg the segment the next line goes to
 * @param activeBuf its bytes so far (a buffer at least 1024 bytes long), valid up to {@code activeLen}
 */
record ChainTail(Event last, long activeSeg, byte[] activeBuf, int activeLen) {

    /**
     * Reads the tail of the chain whose segment files are {@code segments} ({@code n} lines each).
     *
     * @throws IllegalStateException if a segment's lines lie outside its seq range, or (when
     *     {@code readOnly}) its final line is torn
     */
    static ChainTail read(Path ledgerDir, int n, TreeMap<Long, Path> segments, List<String> notes, boolean readOnly)
            throws IOException {
        for (Map.Entry<Long, Path> e : segments.descendingMap().entrySet()) {
            long idx = e.getKey();
            Path file = e.getValue();
            byte[] bytes = Files.readAllBytes(file);
            int len = SegmentLines.recoverTail(bytes, file, ledgerDir, notes, readOnly);
            if (len == 0) {
                continue; // an empty segment (created, then crashed before the first line): look further back
            }
            Event first = SegmentLines.parseLine(bytes, 0, SegmentLines.lineEnd(bytes, 0, len), file);
            if (first.seq() != idx * n + 1) {
                throw new IllegalStateException("segment " + file + " starts at seq " + first.seq() + " but segment "
                        + idx + " of " + n + "-line segments starts at " + (idx * n + 1)
                        + "; was the ledger written with another segmentLines?");
            }
            int lastStart = SegmentLines.lastLineStart(bytes, len);
            Event last = SegmentLines.parseLine(bytes, lastStart, len - 1, file);
            if ((last.seq() - 1) / n != idx) {
                throw new IllegalStateException(
                        "segment " + file + " ends at seq " + last.seq() + ", beyond its " + n + "-line range");
            }
            long activeSeg = last.seq() / n;
            if (activeSeg == idx) {
                return new ChainTail(last, activeSeg, Arrays.copyOf(bytes, Math.max(len, 1024)), len);
            }
            return new ChainTail(last, activeSeg, new byte[1024], 0);
        }
        return new ChainTail(null, 0, new byte[1024], 0);
    }
}
