package dev.memoryd.grammar.policy;

/**
 * xxHash64 (XXH64 of the reference implementation by Yann Collet), in pure Java.
 *
 * <p>Contract: {@link #hash(byte[], long)} returns the XXH64 digest of all of {@code data}
 * with the given seed, as the signed {@code long} holding the unsigned 64-bit value; input
 * words are read little-endian, as the reference does on every platform.
 * {@link #hex(long)} prints a digest the way memoryd stores it: 16 lowercase hex digits,
 * zero-padded (docs/DESIGN.md: seed 0, 16 lowercase hex digits).
 *
 * <p>Thread-safety: stateless; all methods are safe to call concurrently.
 */
public final class XxHash64 {
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;

    private XxHash64() {}

    /** XXH64 of {@code data} with {@code seed}. */
    public static long hash(byte[] data, long seed) {
        int len = data.length;
        int p = 0;
        long h;
        if (len >= 32) {
            long v1 = seed + P1 + P2;
            long v2 = seed + P2;
            long v3 = seed;
            long v4 = seed - P1;
            int limit = len - 32;
            do {
                v1 = round(v1, le64(data, p));
                v2 = round(v2, le64(data, p + 8));
                v3 = round(v3, le64(data, p + 16));
                v4 = round(v4, le64(data, p + 24));
                p += 32;
            } while (p <= limit);
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = mergeRound(h, v1);
            h = mergeRound(h, v2);
            h = mergeRound(h, v3);
            h = mergeRound(h, v4);
        } else {
            h = seed + P5;
        }
        h += len;
        while (p + 8 <= len) {
            h ^= round(0, le64(data, p));
            h = Long.rotateLeft(h, 27) * P1 + P4;
            p += 8;
        }
        if (p + 4 <= len) {
            h ^= (le32(data, p) & 0xFFFFFFFFL) * P1;
            h = Long.rotateLeft(h, 23) * P2 + P3;
            p += 4;
        }
        while (p < len) {
            h ^= (data[p] & 0xFFL) * P5;
            h = Long.rotateLeft(h, 11) * P1;
            p++;
        }
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }

    /** The digest as 16 lowercase hex digits, zero-padded. */
    public static String hex(long digest) {
        String s = Long.toHexString(digest);
        return "0".repeat(16 - s.length()) + s;
    }

    private static long round(long acc, long input) {
        acc += input * P2;
        acc = Long.rotateLeft(acc, 31);
        return acc * P1;
    }

    private static long mergeRound(long acc, long val) {
        acc ^= round(0, val);
        return acc * P1 + P4;
    }

    private static long le64(byte[] b, int i) {
        return (b[i] & 0xFFL)
                | (b[i + 1] & 0xFFL) << 8
                | (b[i + 2] & 0xFFL) << 16
                | (b[i + 3] & 0xFFL) << 24
                | (b[i + 4] & 0xFFL) << 32
                | (b[i + 5] & 0xFFL) << 40
                | (b[i + 6] & 0xFFL) << 48
                | (b[i + 7] & 0xFFL) << 56;
    }

    private static int le32(byte[] b, int i) {
        return (b[i] & 0xFF) | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24;
    }
}
