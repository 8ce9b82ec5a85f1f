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
        // The lines from the first non-blank one to the last, as they are: a cut, not a split and join
        // (the body of a large section is canonicalised on every write to it).
        int from = 0;
        while (true) {
            int eol = s.indexOf('\n', from);
            int lineEnd = eol < 0 ? s.length() : eol;
            if (!blank(s, from, lineEnd)) {
                break;
            }
            if (eol < 0) {
                return "";
            }
            from = eol + 1;
        }
        int to = s.length();
        while (true) {
            int bol = s.lastIndexOf('\n', to - 1) + 1;
            if (!blank(s, bol, to)) {
                break;
            }
            to = bol - 1; // the newline before the blank line; a non-blank line lies before it
        }
        // One copy, not two, where the last line's newline is there to keep.
        return to < s.length() ? s.substring(from, to + 1) : s.substring(from, to) + "\n";
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
