package dev.memoryd.grammar;

import java.util.Arrays;

/**
 * Where each line of a text starts, for turning char offsets into 1-based line numbers and line
 * starts in O(log lines). A line ends after its {@code \n}; a {@code \r} belongs to its line.
 *
 * <p>Immutable and thread-safe.
 */
final class LineIndex {
    private final int[] starts;

    LineIndex(String text) {
        int[] s = new int[64];
        int n = 1;
        for (int i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
            if (n == s.length) {
                s = Arrays.copyOf(s, n * 2);
            }
            s[n++] = i + 1;
        }
        this.starts = Arrays.copyOf(s, n);
    }

    private LineIndex(int[] starts) {
        this.starts = starts;
    }

    /**
     * The line starts of this text with {@code [start, end)} replaced by {@code replacement}: the
     * same as a new index of the new text, found by looking only at the replacement (a large file
     * changed in one section has thousands of lines the change does not move but by an offset).
     */
    LineIndex spliced(int start, int end, String replacement) {
        // A line start s follows the newline at s - 1: kept when that newline lies before the
        // change, gone when it lies in it, moved by the change's length when it lies after it.
        int keep = upperBound(start); // starts <= start
        int after = upperBound(end); // starts <= end: those from here on lie after the change
        int added = 0;
        for (int i = replacement.indexOf('\n'); i >= 0; i = replacement.indexOf('\n', i + 1)) {
            added++;
        }
        int[] s = new int[keep + added + starts.length - after];
        System.arraycopy(starts, 0, s, 0, keep);
        int n = keep;
        for (int i = replacement.indexOf('\n'); i >= 0; i = replacement.indexOf('\n', i + 1)) {
            s[n++] = start + i + 1;
        }
        int delta = replacement.length() - (end - start);
        for (int i = after; i < starts.length; i++) {
            s[n++] = starts[i] + delta;
        }
        return new LineIndex(s);
    }

    /** How many line starts are at or before {@code offset}. */
    private int upperBound(int offset) {
        int lo = 0;
        int hi = starts.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (starts[mid] <= offset) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The line starts, for comparing two indexes. */
    int[] starts() {
        return starts.clone();
    }

    /** 1-based line number of a char offset. */
    int lineOf(int offset) {
        int lo = 0;
        int hi = starts.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo + 1;
    }

    /**
     * 0-based index of the line holding {@code offset}, looked for from line {@code from} on: for
     * offsets taken in increasing order, a walk over the lines once in all instead of a search each.
     */
    int lineIndexFrom(int from, int offset) {
        int i = from;
        if (i < 0 || i >= starts.length || starts[i] > offset) {
            return lineOf(offset) - 1;
        }
        while (i + 1 < starts.length && starts[i + 1] <= offset) {
            i++;
        }
        return i;
    }

    /** Offset of the start of 0-based line {@code index}. */
    int start(int index) {
        return starts[index];
    }

    /** Offset of the start of the line holding {@code offset}. */
    int lineStartOf(int offset) {
        return starts[lineOf(offset) - 1];
    }

    /** How many line starts the text has: one more than its newlines. */
    int count() {
        return starts.length;
    }
}
