package dev.memoryd.ledger;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Finding and parsing the newline-terminated lines of a segment's bytes, and cutting a torn final
 * line off a segment file.
 *
 * <p>Stateless; safe from any thread. Only {@link #recoverTail} touches a file: it truncates and
 * forces it before returning.
 */
final class SegmentLines {
    private SegmentLines() {}

    /** Cuts a torn final line; returns the length to keep (truncating the file if shorter). */
    static int recoverTail(byte[] bytes, Path file, Path ledgerDir, List<String> notes, boolean readOnly)
            throws IOException {
        int len = bytes.length;
        String rel = Layout.relative(ledgerDir, file);
        if (len > 0 && bytes[len - 1] != '\n') {
            int keep = lastNewline(bytes, len) + 1;
            notes.add(rel + ": dropped a torn final line (" + (len - keep) + " bytes without a trailing newline)");
            len = keep;
        }
        if (len > 0) {
            int start = lastLineStart(bytes, len);
            try {
                Event.fromJson(LineCodec.parse(bytes, start, len - 1 - start));
            } catch (IOException | IllegalArgumentException e) {
                notes.add(rel + ": dropped an unparseable final line (" + (len - start) + " bytes): " + e.getMessage());
                len = start;
            }
        }
        if (len != bytes.length && readOnly) {
            throw new IllegalStateException(notes.get(notes.size() - 1).replace("dropped", "has")
                    + "; a daemon stopped mid-write: 'memoryd serve' repairs it, checking commands change nothing");
        }
        if (len != bytes.length) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(len);
                ch.force(false);
            }
        }
        return len;
    }

    static int lastNewline(byte[] b, int len) {
        for (int i = len - 1; i >= 0; i--) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** Start of the last line in {@code b[0, len)}, which ends with a newline. */
    static int lastLineStart(byte[] b, int len) {
        return lastNewline(b, len - 1) + 1;
    }

    /** The index of the first newline at or after {@code from}, or {@code len} when there is none. */
    static int lineEnd(byte[] b, int from, int len) {
        for (int i = from; i < len; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return len;
    }

    /** The event on {@code b[start, end)}; a line that does not parse names {@code file}. */
    static Event parseLine(byte[] b, int start, int end, Path file) {
        try {
            return Event.fromJson(LineCodec.parse(b, start, end - start));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("unreadable line in " + file + ": " + e.getMessage(), e);
        }
    }
}
