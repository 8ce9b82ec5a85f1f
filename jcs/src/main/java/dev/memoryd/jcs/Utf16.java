package dev.memoryd.jcs;

/**
 * Well-formed UTF-16: no lone surrogate. A lone surrogate has no UTF-8 form, so no file, file
 * name, Git object or ledger line can hold it, and RFC 8785 refuses it. The one implementation of
 * that rule, for the modules that may not depend on the grammar (the ledger's branch names).
 * Stateless.
 */
public final class Utf16 {

    private Utf16() {}

    /** Why {@code s} is not well-formed UTF-16 (its first lone surrogate), or null if it is. */
    public static String malformed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "has a lone surrogate U+%04X at index %d (text must be well-formed UTF-16)"
                        .formatted((int) c, i);
            }
        }
        return null;
    }
}
