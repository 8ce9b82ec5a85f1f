package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SectionTextTest {
    /** A region of a short random text of blanks, line ends (CRLF among them) and letters. */
    private record Region(String text, int from, int to) {
        private static final String ALPHABET = "ab \t\n\n\r\u00a0é";

        static Region random(Random r) {
            StringBuilder b = new StringBuilder();
            int n = r.nextInt(60);
            while (b.length() < n) {
                b.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
            }
            String text = b.toString();
            int from = r.nextInt(text.length() + 1);
            return new Region(text, from, from + r.nextInt(text.length() - from + 1));
        }
    }

    @Test
    void aRegionCanonicalisedInPlace_isTheSameAsItsSubstringCanonicalised() {
        Random r = new Random(20261129);
        for (int round = 0; round < 20_000; round++) {
            Region g = Region.random(r);
            String text = g.text();
            int from = g.from();
            int to = g.to();
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
        int keptBack = 0;
        for (int round = 0; round < 20_000; round++) {
            Region g = Region.random(r);
            String text = g.text();
            int from = g.from();
            int to = g.to();
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
