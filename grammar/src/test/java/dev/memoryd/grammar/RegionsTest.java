package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class RegionsTest {
    @Test
    void equalRegions_agreeWithRegionMatches_onRandomTextsAcrossBlocks() {
        Random r = new Random(20261129);
        String alphabet = "ab\n -é€😀";
        for (int round = 0; round < 3_000; round++) {
            String a = text(r, alphabet, r.nextInt(3) == 0 ? 9_000 + r.nextInt(4_000) : r.nextInt(300));
            int aFrom = a.isEmpty() ? 0 : r.nextInt(a.length());
            int len = r.nextInt(a.length() - aFrom + 1);
            int bFrom = r.nextInt(40);
            String region = a.substring(aFrom, aFrom + len);
            if (r.nextBoolean() && len > 0) { // one character changed somewhere in the region
                char[] c = region.toCharArray();
                c[r.nextInt(c.length)] = alphabet.charAt(r.nextInt(alphabet.length()));
                region = new String(c);
            }
            String b = text(r, alphabet, bFrom).substring(0, bFrom) + region + text(r, alphabet, r.nextInt(20));
            int l = r.nextInt(5) == 0 ? len + r.nextInt(3) : len; // sometimes past an end
            assertEquals(
                    a.regionMatches(aFrom, b, bFrom, l),
                    Regions.equal(a, aFrom, b, bFrom, l),
                    () -> "aFrom " + aFrom + " bFrom " + bFrom + " len " + l);
        }
    }

    @Test
    void regionsOutsideTheirStrings_areNotEqual() {
        assertFalse(Regions.equal("abc", 2, "bc", 0, 2));
        assertFalse(Regions.equal("abc", -1, "abc", 0, 1));
        assertFalse(Regions.equal("abc", 0, "abc", 0, -1));
        assertTrue(Regions.equal("abc", 3, "", 0, 0));
        assertTrue(Regions.startsWith("abc\n", "abc"));
        assertFalse(Regions.startsWith("ab", "abc"));
    }

    @Test
    void aDifferenceInTheLastBlock_isFound() {
        String a = "x".repeat(10_000);
        String b = "x".repeat(9_999) + "y";
        assertFalse(Regions.equal(a, 0, b, 0, 10_000));
        assertTrue(Regions.equal(a, 0, b, 0, 9_999));
        String c = "x".repeat(5_000) + "y" + "x".repeat(4_999);
        assertFalse(Regions.equal(a, 0, c, 0, 10_000));
        assertTrue(Regions.equal(c, 5_001, a, 17, 4_999));
    }

    private static String text(Random r, String alphabet, int n) {
        StringBuilder b = new StringBuilder();
        while (b.length() < n) {
            b.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return b.toString();
    }
}
