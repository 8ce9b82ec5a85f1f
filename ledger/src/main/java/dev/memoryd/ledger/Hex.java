package dev.memoryd.ledger;

/** Lowercase hex encoding and strict decoding. Stateless, thread-safe. */
final class Hex {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {}

    static String encode(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = DIGITS[(bytes[i] >> 4) & 0xF];
            out[2 * i + 1] = DIGITS[bytes[i] & 0xF];
        }
        return new String(out);
    }

    /** Decodes hex (either case); throws IllegalArgumentException on odd length or a non-hex char. */
    static byte[] decode(String hex) {
        if (hex.length() % 2 != 0) {
            throw new IllegalArgumentException("odd-length hex string");
        }
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = Character.digit(hex.charAt(2 * i), 16);
            int lo = Character.digit(hex.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("not a hex string");
            }
            out[i] = (byte) ((hi << 4) | lo);
        }
        return out;
    }

    /** True if {@code s} is exactly {@code len} lowercase hex digits. */
    static boolean isLowerHex(String s, int len) {
        if (s == null || s.length() != len) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }
}
