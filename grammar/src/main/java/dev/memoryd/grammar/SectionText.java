package dev.memoryd.grammar;

/**
 * The canonical form of a section body, the text content hashes are computed over.
 *
 * <p>Stateless; safe from any thread.
 */
final class SectionText {
    private SectionText() {}

    /** As {@link MemoryDocument#canonicalize}. */
    static String canonicalize(String body) {
        String s = body.replace("\r\n", "\n");
        return cut(s, 0, s.length());
    }

    /**
     * The canonical form of {@code text[from, to)}, as {@link #canonicalize(String)} of that
     * substring, cut from {@code text} in one copy (a section's body, canonicalised on every write
     * to it, is not copied out first). {@code crFree}: the caller knows {@code text} holds no
     * {@code \r}, so it need not be looked for.
     */
    static String canonicalize(String text, int from, int to, boolean crFree) {
        if (!crFree) {
            int cr = text.indexOf('\r', from);
            if (cr >= 0 && cr < to) {
                return canonicalize(text.substring(from, to));
            }
        }
        return cut(text, from, to);
    }

    /**
     * The lines of {@code s[start, end)} (no {@code \r\n} in it) from the first non-blank one to the
     * last, as they are, ending in one {@code \n}.
     */
    private static String cut(String s, int start, int end) {
        int from = start;
        while (true) {
            int eol = s.indexOf('\n', from);
            int lineEnd = eol < 0 || eol >= end ? end : eol;
            if (!blank(s, from, lineEnd)) {
                break;
            }
            if (lineEnd == end) {
                return "";
            }
            from = eol + 1;
        }
        int to = end;
        while (true) {
            int bol = Math.max(s.lastIndexOf('\n', to - 1) + 1, start);
            if (!blank(s, bol, to)) {
                break;
            }
            to = bol - 1; // the newline before the blank line; a non-blank line lies before it
        }
        // One copy, not two, where the last line's newline is there to keep.
        return to < end ? s.substring(from, to + 1) : s.substring(from, to) + "\n";
    }

    /** Whether {@code s[from, to)} is empty or only whitespace, as {@link String#isBlank} says. */
    static boolean blank(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!Character.isWhitespace(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
