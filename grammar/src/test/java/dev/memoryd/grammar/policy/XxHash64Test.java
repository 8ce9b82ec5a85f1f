package dev.memoryd.grammar.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * XXH64 against published vectors: the sanity table of xxHash's {@code cli/xsum_sanity_check.c}
 * (a buffer filled from PRIME32/PRIME64; lengths 0, 1, 4, 14 and 222 cover every tail path and
 * the 32-byte stripe loop; seeds 0 and PRIME32) and well-known string digests.
 */
class XxHash64Test {
    private static final long PRIME32 = 2654435761L;
    /** The sanity buffer generator's multiplier (not XXH64's PRIME64_1, which ends in ...791). */
    private static final long PRIME64 = Long.parseUnsignedLong("11400714785074694797");

    private static byte[] sanityBuffer(int len) {
        byte[] b = new byte[len];
        long gen = PRIME32;
        for (int i = 0; i < len; i++) {
            b[i] = (byte) (gen >>> 56);
            gen *= PRIME64;
        }
        return b;
    }

    private static byte[] prefix(int n) {
        byte[] all = sanityBuffer(222);
        byte[] out = new byte[n];
        System.arraycopy(all, 0, out, 0, n);
        return out;
    }

    @Test
    void matchesTheOfficialSanityVectors() {
        assertEquals(0xEF46DB3751D8E999L, XxHash64.hash(prefix(0), 0));
        assertEquals(0xAC75FDA2929B17EFL, XxHash64.hash(prefix(0), PRIME32));
        assertEquals(0xE934A84ADB052768L, XxHash64.hash(prefix(1), 0));
        assertEquals(0x5014607643A9B4C3L, XxHash64.hash(prefix(1), PRIME32));
        assertEquals(0x9136A0DCA57457EEL, XxHash64.hash(prefix(4), 0));
        assertEquals(0x8282DCC4994E35C8L, XxHash64.hash(prefix(14), 0));
        assertEquals(0xC3BD6BF63DEB6DF0L, XxHash64.hash(prefix(14), PRIME32));
        assertEquals(0xB641AE8CB691C174L, XxHash64.hash(prefix(222), 0));
        assertEquals(0x20CB8AB7AE10C14AL, XxHash64.hash(prefix(222), PRIME32));
    }

    @Test
    void matchesWellKnownStringDigests() {
        assertEquals("ef46db3751d8e999", hex(""));
        assertEquals("d24ec4f1a98c6e5b", hex("a"));
        assertEquals("44bc2cf5ad770999", hex("abc"));
        assertEquals("fbcea83c8a378bf1", hex("Nobody inspects the spammish repetition")); // 39 bytes: stripe + tails
        assertEquals("0b242d361fda71bc", hex("The quick brown fox jumps over the lazy dog"));
    }

    @Test
    void hexIsSixteenLowercaseDigitsZeroPadded() {
        assertEquals("0000000000000000", XxHash64.hex(0));
        assertEquals("000000000000002a", XxHash64.hex(42));
        assertEquals("ffffffffffffffff", XxHash64.hex(-1));
        assertEquals("8000000000000000", XxHash64.hex(Long.MIN_VALUE));
    }

    private static String hex(String s) {
        return XxHash64.hex(XxHash64.hash(s.getBytes(StandardCharsets.UTF_8), 0));
    }
}
