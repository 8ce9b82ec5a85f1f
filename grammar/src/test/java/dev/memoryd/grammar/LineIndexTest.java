package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

class LineIndexTest {
    private static String random(Random r, int max) {
        String alphabet = "ab\n\r \n";
        StringBuilder b = new StringBuilder();
        int len = r.nextInt(max + 1);
        for (int i = 0; i < len; i++) {
            b.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    @Test
    void aSplicedIndex_isTheIndexOfTheNewText() {
        Random r = new Random(20261129);
        for (int i = 0; i < 20_000; i++) {
            String text = random(r, 40);
            int start = r.nextInt(text.length() + 1);
            int end = start + r.nextInt(text.length() - start + 1);
            String replacement = random(r, 12);
            String next = text.substring(0, start) + replacement + text.substring(end);
            LineIndex spliced = new LineIndex(text).spliced(start, end, replacement);
            assertArrayEquals(
                    new LineIndex(next).starts(),
                    spliced.starts(),
                    () -> text.replace("\n", "\\n") + " [" + start + "," + end + ") <- "
                            + replacement.replace("\n", "\\n"));
        }
    }

    @Test
    void chainedSplices_keepTheIndexOfEachText() {
        Random r = new Random(7);
        String text = random(r, 200);
        LineIndex index = new LineIndex(text);
        for (int i = 0; i < 5_000; i++) {
            int start = r.nextInt(text.length() + 1);
            int end = start + r.nextInt(Math.min(20, text.length() - start) + 1);
            String replacement = random(r, 20);
            text = text.substring(0, start) + replacement + text.substring(end);
            index = index.spliced(start, end, replacement);
            assertArrayEquals(new LineIndex(text).starts(), index.starts(), "step " + i);
        }
    }
}
