package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BodiesWordsTest {
    /** The rule the word caps are stated in: each line trimmed and split on \s+, H3 lines not counted. */
    private static int bySplitting(String body) {
        int n = 0;
        for (String l : body.split("\n")) {
            if (l.startsWith("### ")) {
                continue;
            }
            for (String w : l.trim().split("\\s+")) {
                if (!w.isEmpty()) {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    void countsWordsAsTrimmingAndSplittingEachLineDoes_skippingH3Lines() {
        assertEquals(0, Bodies.words(""));
        assertEquals(3, Bodies.words("### A heading\none two\n\n  three  \n"));
        String alphabet = "ab #\n\t\r\u000b\f\u0001\u00a0é";
        Random rnd = new Random(20261125);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sb = new StringBuilder();
            int len = rnd.nextInt(40);
            for (int k = 0; k < len; k++) {
                sb.append(
                        rnd.nextInt(12) == 0
                                ? "### "
                                : String.valueOf(alphabet.charAt(rnd.nextInt(alphabet.length()))));
            }
            String s = sb.toString();
            assertEquals(bySplitting(s), Bodies.words(s), () -> "for " + s.replace("\n", "\\n"));
        }
    }

    @Test
    void aBodyGrownFromOneCountedBefore_countsAsAFreshCountWould() {
        String alphabet = "ab #\n\t\r\u000b\f\u0001\u00a0é";
        Random rnd = new Random(20261126);
        for (int run = 0; run < 200; run++) {
            StringBuilder body = new StringBuilder();
            for (int step = 0; step < 40; step++) {
                int len = rnd.nextInt(30);
                for (int k = 0; k < len; k++) {
                    body.append(
                            rnd.nextInt(10) == 0
                                    ? (rnd.nextBoolean() ? "### " : "\n")
                                    : String.valueOf(alphabet.charAt(rnd.nextInt(alphabet.length()))));
                }
                String s = body.toString();
                assertEquals(bySplitting(s), Bodies.words(s), () -> "for " + s.replace("\n", "\\n"));
                // the same text again, and a copy that is a different string
                assertEquals(bySplitting(s), Bodies.words(new String(s)));
            }
        }
    }
}
