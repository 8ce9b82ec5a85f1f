package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SectionTextTest {
    @Test
    void aRegionCanonicalisedInPlace_isTheSameAsItsSubstringCanonicalised() {
        Random r = new Random(20261129);
        String alphabet = "ab \t\n\n\r\u00a0é";
        for (int round = 0; round < 20_000; round++) {
            StringBuilder b = new StringBuilder();
            int n = r.nextInt(60);
            while (b.length() < n) {
                b.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
            String text = b.toString();
            int from = r.nextInt(text.length() + 1);
            int to = from + r.nextInt(text.length() - from + 1);
            String expected = MemoryDocument.canonicalize(text.substring(from, to));
            assertEquals(
                    expected,
                    SectionText.canonicalize(text, from, to, text.indexOf('\r') < 0),
                    () -> "[" + from + ", " + to + ") of "
                            + text.replace("\n", "\\n").replace("\r", "\\r"));
        }
    }

    @Test
    void theCanonicalForm_dropsBlankLinesAroundAndEndsInOneNewline() {
        assertEquals("a\n  b\n", SectionText.canonicalize("\n  \na\n  b\n\n \n"));
        assertEquals("a\n", SectionText.canonicalize("x\na\r\n", 2, 5, false));
        assertEquals("", SectionText.canonicalize("x\n \n\ny", 2, 5, true));
        assertEquals("b\n", SectionText.canonicalize("a\nb", 2, 3, true));
    }
}
