package dev.memoryd.grammar;

/**
 * The line under a section heading that names the section's anchor, in either of its two forms:
 * {@code <!-- @anchor: ID v1 -->} or {@code [//]: # (anchor: ID v1)}, where ID is a run of
 * characters other than whitespace and whitespace (regex {@code \s}: space, tab, line feed,
 * vertical tab, form feed, carriage return) may stand around every part but {@code v1)}, and must
 * stand between ID and {@code v1}. Read by hand rather than by a regular expression: a file's sections are found
 * again after every change, and matching every section's anchor line was a measurable part of a
 * write. Stateless.
 */
final class AnchorLine {
    private AnchorLine() {}

    /** The anchor {@code s[from, to)} names in either form, or null when it is not an anchor line. */
    static String anchorOf(CharSequence s, int from, int to) {
        String id = commentAnchor(s, from, to);
        return id != null ? id : linkAnchor(s, from, to);
    }

    /** The anchor of the whole of {@code s}, in either form, or null. */
    static String anchorOf(CharSequence s) {
        return anchorOf(s, 0, s.length());
    }

    /** Whether {@code s[from, to)} is an anchor line in the comment form, {@code <!-- @anchor: ID v1 -->}. */
    static boolean isComment(CharSequence s, int from, int to) {
        return commentAnchor(s, from, to) != null;
    }

    private static String commentAnchor(CharSequence s, int from, int to) {
        int i = expect(s, space(s, from, to), to, "<!--");
        i = expect(s, space(s, i, to), to, "@anchor:");
        return idThen(s, i, to, "-->", true);
    }

    private static String linkAnchor(CharSequence s, int from, int to) {
        int i = expect(s, space(s, from, to), to, "[//]:");
        i = expect(s, space(s, i, to), to, "#");
        i = expect(s, space(s, i, to), to, "(anchor:");
        return idThen(s, i, to, ")", false);
    }

    /**
     * From {@code i} (negative: no match so far): spaces, the ID, spaces (one at least), v1, spaces
     * when {@code spaced} (the comment form; the link form has none), {@code close}, spaces, the end.
     */
    private static String idThen(CharSequence s, int i, int to, String close, boolean spaced) {
        if (i < 0) {
            return null;
        }
        int idStart = space(s, i, to);
        int idEnd = idStart;
        while (idEnd < to && !isSpace(s.charAt(idEnd))) {
            idEnd++;
        }
        int j = space(s, idEnd, to);
        if (idEnd == idStart || j == idEnd) {
            return null;
        }
        j = expect(s, j, to, "v1");
        j = expect(s, spaced ? space(s, j, to) : j, to, close);
        return j >= 0 && space(s, j, to) == to ? s.subSequence(idStart, idEnd).toString() : null;
    }

    /** The index after {@code word} when it starts at {@code i}, else -1 (and -1 stays -1). */
    private static int expect(CharSequence s, int i, int to, String word) {
        if (i < 0 || to - i < word.length()) {
            return -1;
        }
        for (int k = 0; k < word.length(); k++) {
            if (s.charAt(i + k) != word.charAt(k)) {
                return -1;
            }
        }
        return i + word.length();
    }

    private static int space(CharSequence s, int i, int to) {
        if (i < 0) {
            return i;
        }
        while (i < to && isSpace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Regex {@code \s} without the Unicode flag. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }
}
