package dev.memoryd.grammar.slip;

/**
 * Base62 for the non-negative integers of nSLIP, with the alphabet slip-v0.1 §3 fixes:
 * {@value #ALPHABET} (so {@code 0 → "0"}, {@code 10 → "A"}, {@code 61 → "z"},
 * {@code 62 → "10"}).
 *
 * <p>Contract: {@link #encode} maps every {@code long} in {@code [0, Long.MAX_VALUE]} to
 * its one canonical spelling (most significant digit first, no leading zero except the
 * single digit {@code 0}; at most {@value #MAX_DIGITS} digits). {@link #decode} accepts
 * exactly those spellings: it rejects the empty string, any char outside the alphabet,
 * a leading {@code 0} before further digits, and values above {@code Long.MAX_VALUE}, so
 * {@code decode(encode(v)) == v} and {@code encode(decode(s)).equals(s)}.
 */
public final class Base62 {

    /** The digits, in value order. */
    public static final String ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    /** Digits of {@code Long.MAX_VALUE}, the longest spelling. */
    public static final int MAX_DIGITS = 11;

    private static final int RADIX = 62;

    private Base62() {}

    /**
     * The canonical spelling of {@code value}.
     *
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public static String encode(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("base62 encodes non-negative integers only, got " + value);
        }
        if (value == 0) {
            return "0";
        }
        char[] buf = new char[MAX_DIGITS];
        int i = buf.length;
        while (value > 0) {
            buf[--i] = ALPHABET.charAt((int) (value % RADIX));
            value /= RADIX;
        }
        return new String(buf, i, buf.length - i);
    }

    /**
     * The value of a canonical spelling.
     *
     * @throws NumberFormatException naming the offending index if {@code s} is empty, has
     *                               a char outside the alphabet, a leading zero, or
     *                               exceeds {@code Long.MAX_VALUE}
     */
    public static long decode(String s) {
        try {
            return decode(s, 0, s.length());
        } catch (Malformed m) {
            throw new NumberFormatException("invalid base62 '" + s + "' at index " + m.index + ": " + m.getMessage());
        }
    }

    /** The value of the digit {@code c}, or -1 if it is not in the alphabet. */
    static int digit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'A' && c <= 'Z') {
            return c - 'A' + 10;
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 36;
        }
        return -1;
    }

    /**
     * Decodes {@code s[from, to)}.
     *
     * @throws Malformed with the absolute index of the problem (for an empty range: {@code from})
     */
    static long decode(CharSequence s, int from, int to) {
        if (from >= to) {
            throw new Malformed(from, false, "expected at least one base62 digit");
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            int d = digit(c);
            if (d < 0) {
                throw new Malformed(i, false, "'" + printable(c) + "' is not a base62 digit");
            }
            if (i == from && d == 0 && to - from > 1) {
                throw new Malformed(i, false, "leading zero (the canonical spelling has none)");
            }
            if (value > (Long.MAX_VALUE - d) / RADIX) {
                throw new Malformed(i, true, "value exceeds " + Long.MAX_VALUE + " (" + encode(Long.MAX_VALUE) + ")");
            }
            value = value * RADIX + d;
        }
        return value;
    }

    /** A char for an error message: itself if printable, else {@code U+XXXX}. */
    static String printable(char c) {
        return c >= 0x20 && c < 0x7f ? String.valueOf(c) : "U+%04X".formatted((int) c);
    }

    /** A malformed spelling; stackless, used to unwind to the caller that knows the context. */
    static final class Malformed extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int index;
        final boolean overflow;

        Malformed(int index, boolean overflow, String message) {
            super(message, null, false, false);
            this.index = index;
            this.overflow = overflow;
        }
    }
}
