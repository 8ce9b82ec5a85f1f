package dev.memoryd.jcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class Utf16Test {

    @Test
    void surrogatePairsAndPlainText_areWellFormed() {
        assertNull(Utf16.malformed(""));
        assertNull(Utf16.malformed("plain text, tabs\tand\nnewlines"));
        assertNull(Utf16.malformed("a pair \ud83d\ude00 and another at the end \ud800\udc00"));
    }

    @Test
    void loneSurrogate_isNamedWithItsIndex() {
        assertEquals(
                "has a lone surrogate U+D800 at index 1 (text must be well-formed UTF-16)", Utf16.malformed("x\ud800"));
        assertEquals(
                "has a lone surrogate U+DC00 at index 0 (text must be well-formed UTF-16)",
                Utf16.malformed("\udc00\ud800"));
        assertEquals(
                "has a lone surrogate U+D83D at index 2 (text must be well-formed UTF-16)",
                Utf16.malformed("ab\ud83dc"));
    }
}
