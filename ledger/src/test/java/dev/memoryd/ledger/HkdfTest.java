package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** RFC 5869 Appendix A, test cases 1-3 (SHA-256). */
class HkdfTest {
    private static byte[] range(int from, int toInclusive) {
        byte[] b = new byte[toInclusive - from + 1];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    private static byte[] repeat(int value, int n) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }

    @Test
    void matchesRfc5869TestCase1() {
        byte[] okm = Hkdf.sha256(repeat(0x0b, 22), range(0x00, 0x0c), range(0xf0, 0xf9), 42);
        assertEquals(
                "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865",
                Hex.encode(okm));
    }

    @Test
    void matchesRfc5869TestCase2WithLongInputs() {
        byte[] okm = Hkdf.sha256(range(0x00, 0x4f), range(0x60, 0xaf), range(0xb0, 0xff), 82);
        assertEquals(
                "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                        + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                        + "cc30c58179ec3e87c14c01d5c1f3434f1d87",
                Hex.encode(okm));
    }

    @Test
    void matchesRfc5869TestCase3WithEmptySaltAndInfo() {
        byte[] okm = Hkdf.sha256(repeat(0x0b, 22), new byte[0], new byte[0], 42);
        assertEquals(
                "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8",
                Hex.encode(okm));
    }

    @Test
    void keyRingSubkeysAreHkdfOfTheMasterWithEmptySaltAndTheDocumentedInfo() {
        byte[] master = Fixtures.master(1);
        KeyRing ring = KeyRing.of(Map.of(1, master), 1);
        assertArrayEquals(
                Hkdf.sha256(master, null, "memoryd/ledger-line".getBytes(StandardCharsets.UTF_8), 32), ring.lineKey(1));
        assertArrayEquals(
                Hkdf.sha256(master, null, "memoryd/content-hash".getBytes(StandardCharsets.UTF_8), 32),
                ring.contentKey(1));
        // Independent check: the auditor's hand-written HKDF agrees with BouncyCastle.
        assertArrayEquals(AuditorRecipeTest.hkdfSha256(master, "memoryd/ledger-line"), ring.lineKey(1));
    }
}
