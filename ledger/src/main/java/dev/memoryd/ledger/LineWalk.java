package dev.memoryd.ledger;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/**
 * A cursor over a chain's lines across its segment files, in file order, each line with its file
 * and 1-based line number there; {@link #copy} for look-ahead. Files are read whole, one at a
 * time, through the reader given.
 *
 * <p>Not thread-safe; a copy is independent of its original.
 */
final class LineWalk {
    /** One line of a chain as stored: {@code buf[start, end)}, without its newline. */
    record Line(Path file, int lineNo, byte[] buf, int start, int end, boolean newline) {}

    private final List<Path> files;
    private final Function<Path, byte[]> reader;
    private int fileIdx;
    private byte[] bytes;
    private int off;
    private int lineNo;

    LineWalk(List<Path> files, Function<Path, byte[]> reader) {
        this.files = files;
        this.reader = reader;
    }

    LineWalk copy() {
        LineWalk w = new LineWalk(files, reader);
        w.fileIdx = fileIdx;
        w.bytes = bytes;
        w.off = off;
        w.lineNo = lineNo;
        return w;
    }

    Line next() {
        while (fileIdx < files.size()) {
            if (bytes == null) {
                bytes = reader.apply(files.get(fileIdx));
                off = 0;
                lineNo = 0;
            }
            if (off >= bytes.length) {
                fileIdx++;
                bytes = null;
                continue;
            }
            int start = off;
            int nl = start;
            while (nl < bytes.length && bytes[nl] != '\n') {
                nl++;
            }
            off = nl + 1;
            lineNo++;
            return new Line(files.get(fileIdx), lineNo, bytes, start, nl, nl < bytes.length);
        }
        return null;
    }
}
