package dev.memoryd.ledger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The events of one chain from a seq up to a fixed end, in seq order, read lazily one segment at
 * a time: the active segment from the chain's bytes in memory, the others from their files.
 *
 * <p>Not thread-safe; used by the thread that asked for it. Must not be interleaved with a
 * truncation of the chain. A missing segment or a segment lacking an expected seq is an
 * {@link IllegalStateException}.
 */
final class SegmentReader implements Iterator<Event> {
    private final Path dir;
    private final ActiveSegment active;
    private final long end;
    private long nextSeg;
    private final List<Event> buffered = new ArrayList<>();
    private int pos;
    private long expect;

    SegmentReader(Path dir, int segmentLines, ActiveSegment active, long start, long end) {
        this.dir = dir;
        this.active = active;
        this.end = end;
        this.nextSeg = (start - 1) / segmentLines;
        this.expect = start;
    }

    @Override
    public boolean hasNext() {
        while (pos >= buffered.size() && expect <= end) {
            loadSegment(nextSeg++);
        }
        return pos < buffered.size();
    }

    @Override
    public Event next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Event e = buffered.get(pos++);
        expect = e.seq() + 1;
        return e;
    }

    private void loadSegment(long seg) {
        buffered.clear();
        pos = 0;
        Path file = Layout.segmentFile(dir, seg);
        byte[] bytes;
        int len;
        if (seg == active.index()) {
            bytes = active.buf();
            len = active.len();
        } else {
            try {
                bytes = Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                throw new IllegalStateException("ledger segment missing: " + file, e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            len = bytes.length;
        }
        int off = 0;
        while (off < len) {
            int nl = SegmentLines.lineEnd(bytes, off, len);
            Event e = SegmentLines.parseLine(bytes, off, nl, file);
            if (e.seq() >= expect && e.seq() <= end) {
                buffered.add(e);
            }
            off = nl + 1;
        }
        if (buffered.isEmpty() && expect <= end) {
            throw new IllegalStateException("ledger segment " + file + " lacks seq " + expect);
        }
    }
}
