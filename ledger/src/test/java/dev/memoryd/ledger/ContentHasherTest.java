package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ContentHasherTest {
    private static final byte[] KEY = "a content key of thirty-two bytes".getBytes(StandardCharsets.UTF_8);

    @Test
    void largeTextsHashedAgain_giveTheirOwnHash_whateverWasHashedBefore() {
        ContentHasher hasher = new ContentHasher(1, KEY);
        Random r = new Random(20261129);
        String[] texts = new String[12];
        for (int i = 0; i < texts.length; i++) {
            char[] c =
                    new char[5_000 + r.nextInt(3) * 10]; // many of one length: a memo must compare, not trust lengths
            for (int j = 0; j < c.length; j++) {
                c[j] = "ab \n".charAt(r.nextInt(4));
            }
            texts[i] = new String(c);
        }
        for (int round = 0; round < 400; round++) {
            String t = new String(texts[r.nextInt(texts.length)].toCharArray()); // an equal text made anew
            assertEquals(direct(t), hasher.hash(t));
        }
    }

    @Test
    void aTextOneCharacterApartFromOneHashedJustBefore_hashesDifferently() {
        ContentHasher hasher = new ContentHasher(1, KEY);
        String a = "x".repeat(8_000);
        String b = "x".repeat(7_999) + "y";
        assertEquals(direct(a), hasher.hash(a));
        assertEquals(direct(b), hasher.hash(b));
        assertNotEquals(hasher.hash(a), hasher.hash(b));
        assertNotEquals(
                hasher.hash(a),
                new ContentHasher(2, "another key, also 32 bytes long!".getBytes(StandardCharsets.UTF_8)).hash(a));
    }

    private static String direct(String text) {
        return Hex.encode(ContentHasher.hmacSha256(KEY).doFinal(text.getBytes(StandardCharsets.UTF_8)));
    }
}
