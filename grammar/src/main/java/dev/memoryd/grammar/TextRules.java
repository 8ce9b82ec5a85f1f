package dev.memoryd.grammar;

import dev.memoryd.jcs.Utf16;

/**
 * What text memoryd stores. Every string must be well-formed UTF-16: a lone surrogate has no
 * UTF-8 form, so no file, file name, Git object or ledger line can hold it. Memory text (what an
 * op writes into a file, and a write's rationale) must also hold no control character other than
 * tab, newline and a carriage return that ends a line: a NUL makes Git treat the file as binary,
 * and the others are invisible in a diff. The UTF-16 rule itself is {@link Utf16}, which the
 * ledger shares. Stateless.
 */
public final class TextRules {

    private TextRules() {}

    /** Why {@code s} is not well-formed UTF-16 (its first lone surrogate), or null if it is. */
    public static String malformed(String s) {
        return Utf16.malformed(s);
    }

    /**
     * Why {@code s} cannot be memory text, or null: {@link #malformed}, or a control character
     * other than tab, newline and the carriage return of a {@code \r\n}.
     */
    public static String notMemoryText(String s) {
        String why = malformed(s);
        if (why != null) {
            return why;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean lineEnd = c == '\n' || c == '\t' || c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n';
            if ((c < 0x20 || c == 0x7f) && !lineEnd) {
                return "has control character U+%04X at index %d (only tab and newline are allowed)"
                        .formatted((int) c, i);
            }
        }
        return null;
    }
}
