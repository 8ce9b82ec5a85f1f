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
