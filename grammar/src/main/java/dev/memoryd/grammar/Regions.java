package dev.memoryd.grammar;

import java.util.Arrays;

/**
 * Whether two regions of strings hold the same characters, compared without copying either
 * string: block by block through two small per-thread buffers, each block by the JDK's vectorised
 * mismatch. {@link String#regionMatches} compares a character at a time, and a substring copied to
 * compare with {@link String#equals} allocates the region: on a large section, written to on every
 * note of a bulk import, those copies were most of what the writer allocated.
 *
 * <p>Stateless but for the buffers, which are per thread; safe from any thread.
 */
final class Regions {
    private Regions() {}

    private static final int BLOCK = 4096;

    private static final ThreadLocal<char[][]> BUFFERS = ThreadLocal.withInitial(() -> new char[2][BLOCK]);

    /**
     * Whether {@code a[aFrom, aFrom + len)} equals {@code b[bFrom, bFrom + len)}; false when either
     * region does not lie within its string.
     */
    static boolean equal(String a, int aFrom, String b, int bFrom, int len) {
        if (len < 0 || aFrom < 0 || bFrom < 0 || aFrom > a.length() - len || bFrom > b.length() - len) {
            return false;
        }
        if (len == 0) {
            return true;
        }
        // The ends first: a region that differs usually differs there, and neither costs a copy.
        if (a.charAt(aFrom + len - 1) != b.charAt(bFrom + len - 1)) {
            return false;
        }
        if (len <= 16) {
            return a.regionMatches(aFrom, b, bFrom, len);
        }
        char[][] buf = BUFFERS.get();
        for (int done = 0; done < len; ) {
            int n = Math.min(BLOCK, len - done);
            a.getChars(aFrom + done, aFrom + done + n, buf[0], 0);
            b.getChars(bFrom + done, bFrom + done + n, buf[1], 0);
            if (Arrays.mismatch(buf[0], 0, n, buf[1], 0, n) >= 0) {
                return false;
            }
            done += n;
        }
        return true;
    }

    /** Whether {@code s} starts with {@code prefix}. */
    static boolean startsWith(String s, String prefix) {
        return equal(s, 0, prefix, 0, prefix.length());
    }
}
