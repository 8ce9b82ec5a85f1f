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
        if (!crFree && !noCr(text, from, to)) {
            return canonicalize(text.substring(from, to));
        }
        return cut(text, from, to);
    }

    /**
     * As {@link #canonicalize(String, int, int, boolean)}, but {@code kept} itself where it is that
     * text (null: none), told in place with no copy made: a section whose body did not change is
     * canonicalised again on every write to its file, and a copy of a large one cost as much as the
     * write's change.
     */
    static String canonicalize(String text, int from, int to, boolean crFree, String kept) {
        if (kept == null) {
            return canonicalize(text, from, to, crFree);
        }
        if (!crFree && !noCr(text, from, to)) {
            String c = canonicalize(text, from, to, false); // a human's CRLF lines: rare enough to copy
            return c.equals(kept) ? kept : c;
        }
        int[] r = range(text, from, to);
        if (r == null) {
            return "";
        }
        int len = r[1] - r[0];
        boolean newline = r[2] == 1;
        if (kept.length() == len + (newline ? 1 : 0)
                && (!newline || kept.charAt(len) == '\n')
                && Regions.equal(text, r[0], kept, 0, len)) {
            return kept;
        }
        return copy(text, r);
    }

    private static boolean noCr(String text, int from, int to) {
        int cr = text.indexOf('\r', from);
        return cr < 0 || cr >= to;
    }

    /**
     * The lines of {@code s[start, end)} (no {@code \r\n} in it) from the first non-blank one to the
     * last, as they are, ending in one {@code \n}.
     */
    private static String cut(String s, int start, int end) {
        int[] r = range(s, start, end);
        return r == null ? "" : copy(s, r);
    }

    /** The text {@link #range} found: one copy, not two, where the last line's newline is there to keep. */
    private static String copy(String s, int[] r) {
        return r[2] == 0 ? s.substring(r[0], r[1]) : s.substring(r[0], r[1]) + "\n";
    }

    /**
     * Where {@link #cut} finds its text in {@code s[start, end)}: {from, to, 1 when a newline is
     * added after it, else 0}; null when every line is blank.
     */
    private static int[] range(String s, int start, int end) {
        int from = start;
        while (true) {
            int eol = s.indexOf('\n', from);
            int lineEnd = eol < 0 || eol >= end ? end : eol;
            if (!blank(s, from, lineEnd)) {
                break;
            }
            if (lineEnd == end) {
                return null;
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
        return to < end ? new int[] {from, to + 1, 0} : new int[] {from, to, 1};
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
