package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * Seeded: with a kept text that is the canonical form, one character off, a character short or
     * long, or none, the region canonicalised gives the same text as without it, and the kept
     * instance itself exactly when it is that text.
     */
    @Test
    void aKeptText_isGivenBackItselfExactlyWhenItIsTheCanonicalForm() {
        Random r = new Random(20261130);
        String alphabet = "ab \t\n\n\r\u00a0é";
        int keptBack = 0;
        for (int round = 0; round < 20_000; round++) {
            StringBuilder b = new StringBuilder();
            int n = r.nextInt(60);
            while (b.length() < n) {
                b.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
            String text = b.toString();
            int from = r.nextInt(text.length() + 1);
            int to = from + r.nextInt(text.length() - from + 1);
            boolean crFree = text.indexOf('\r') < 0;
            String expected = SectionText.canonicalize(text, from, to, crFree);
            String kept = new String(expected); // never the instance a copy would give
            switch (r.nextInt(5)) {
                case 0 -> {}
                case 1 -> kept = kept.isEmpty() ? "a" : "x" + kept.substring(1);
                case 2 -> kept = kept.isEmpty() ? kept : kept.substring(0, kept.length() - 1);
                case 3 -> kept = kept + "\n";
                default -> kept = null;
            }
            String got = SectionText.canonicalize(text, from, to, crFree, kept);
            String what =
                    "[" + from + ", " + to + ") of " + text.replace("\n", "\\n").replace("\r", "\\r");
            assertEquals(expected, got, what);
            if (kept != null && kept.equals(expected) && !expected.isEmpty()) {
                assertSame(kept, got, what);
                keptBack++;
            }
        }
        assertTrue(keptBack > 2_000, "kept texts given back: " + keptBack);
    }
}
