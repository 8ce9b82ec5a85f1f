package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Line starts of a spliced text, kept and moved rather than scanned again, against a scan of that text. */
class LineIndexTest {
    @Test
    void aSplicedIndex_givesTheLinesAScanOfTheNewTextGives() {
        Random r = new Random(20261128);
        String alphabet = "ab \n\n\r#-";
        for (int n = 0; n < 20_000; n++) {
            String text = random(r, alphabet, r.nextInt(60));
            int start = r.nextInt(text.length() + 1);
            int end = start + r.nextInt(text.length() - start + 1);
            String with = random(r, alphabet, r.nextInt(12));
            String next = text.substring(0, start) + with + text.substring(end);
            LineIndex spliced = new LineIndex(text).spliced(start, end, with);
            LineIndex scanned = new LineIndex(next);
            String what = "\"" + text.replace("\n", "\\n") + "\" splice(" + start + ", " + end + ", \""
                    + with.replace("\n", "\\n") + "\")";
            assertEquals(scanned.count(), spliced.count(), what);
            for (int at = 0; at <= next.length(); at++) {
                assertEquals(scanned.lineOf(at), spliced.lineOf(at), what + " at " + at);
                assertEquals(scanned.lineStartOf(at), spliced.lineStartOf(at), what + " at " + at);
            }
        }
    }

    private static String random(Random r, String alphabet, int len) {
        StringBuilder b = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
            b.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return b.toString();
    }
}
