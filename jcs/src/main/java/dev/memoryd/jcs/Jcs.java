package dev.memoryd.jcs;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;

/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * <p>Contract: object members are sorted by the UTF-16 code units of their names
 * ({@link String#compareTo} is exactly that order), no whitespace is emitted, strings are
 * escaped as ECMAScript {@code JSON.stringify} does (only quote, backslash and U+0000–U+001F
 * are escaped; backspace, tab, newline, form feed and carriage return use their two-character
 * forms, the other controls six-character escapes in lowercase hex), and numbers are serialized as IEEE-754 doubles in ECMAScript
 * {@code Number.prototype.toString} form (shortest round-tripping digits). Integers beyond
 * ±2<sup>53</sup> are therefore rounded to the nearest double, as RFC 8785 (I-JSON) requires.
 * NaN, infinities, lone surrogates and non-JSON node types (binary, POJO, missing) are
 * rejected with {@link IllegalArgumentException}, except a {@link CanonicalValue}'s node, whose
 * canonical text is emitted as it is.
 *
 * <p>Thread-safety: stateless; all methods are safe to call concurrently.
 */
public final class Jcs {
    /** 2^53: every long with a smaller magnitude is exactly representable as a double. */
    private static final long MAX_EXACT_LONG = 1L << 53;

    private Jcs() {}

    /** Returns the canonical form of {@code node} as a string. */
    public static String canonicalize(JsonNode node) {
        StringBuilder sb = new StringBuilder(256);
        write(node, sb);
        return sb.toString();
    }

    /** Returns the UTF-8 bytes of the canonical form of {@code node}. */
    public static byte[] canonicalBytes(JsonNode node) {
        return canonicalize(node).getBytes(StandardCharsets.UTF_8);
    }

    static void write(JsonNode node, StringBuilder sb) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                String[] names = new String[node.size()];
                int i = 0;
                for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                    names[i++] = it.next();
                }
                // String.compareTo compares UTF-16 code units, which is RFC 8785 §3.2.3's order.
                Arrays.sort(names);
                sb.append('{');
                for (int j = 0; j < names.length; j++) {
                    if (j > 0) {
                        sb.append(',');
                    }
                    writeString(names[j], sb);
                    sb.append(':');
                    write(node.get(names[j]), sb);
                }
                sb.append('}');
            }
            case ARRAY -> {
                sb.append('[');
                for (int j = 0; j < node.size(); j++) {
                    if (j > 0) {
                        sb.append(',');
                    }
                    write(node.get(j), sb);
                }
                sb.append(']');
            }
            case STRING -> writeString(node.textValue(), sb);
            case NUMBER -> writeNumber(node, sb);
            case BOOLEAN -> sb.append(node.booleanValue() ? "true" : "false");
            case NULL -> sb.append("null");
            case POJO -> {
                CanonicalValue c = CanonicalValue.in(node);
                if (c == null) {
                    throw new IllegalArgumentException("JCS cannot serialize a POJO node");
                }
                sb.append(c.text());
            }
            default -> throw new IllegalArgumentException("JCS cannot serialize a " + node.getNodeType() + " node");
        }
    }

    private static void writeNumber(JsonNode node, StringBuilder sb) {
        if (node.canConvertToLong() && node.isIntegralNumber()) {
            long v = node.longValue();
            // Exact integers print the same in ES6 as in Java; skip the double path (the common case: seq,
            // salt_version).
            if (v > -MAX_EXACT_LONG && v < MAX_EXACT_LONG) {
                sb.append(v);
                return;
            }
        }
        sb.append(es6Number(node.doubleValue()));
    }

    /**
     * ECMAScript {@code Number::toString(x)} (ECMA-262 §6.1.6.1.20) for a finite double:
     * the shortest decimal that reads back as {@code x}, closest to {@code x} when several
     * have that length, laid out in plain or exponent form by the exponent's range.
     */
    static String es6Number(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            throw new IllegalArgumentException("JCS cannot serialize " + x);
        }
        if (x == 0) {
            return "0"; // covers -0, which ES6 prints as "0"
        }
        boolean negative = x < 0;
        double abs = Math.abs(x);
        String s;
        int scale;
        long m = fewDecimals(abs);
        if (m >= 0) {
            int decimals = (int) (m & 0xF);
            long digits = m >>> 4;
            int zeros = 0;
            while (digits % 10 == 0) {
                digits /= 10;
                zeros++;
            }
            s = Long.toString(digits);
            scale = decimals - zeros;
        } else {
            BigDecimal digits = shortestDigits(abs);
            s = digits.unscaledValue().toString();
            scale = digits.scale();
        }
        int k = s.length();
        int n = k - scale; // value = 0.s × 10^n
        StringBuilder out = new StringBuilder(k + 8);
        if (negative) {
            out.append('-');
        }
        if (k <= n && n <= 21) {
            out.append(s);
            out.append("0".repeat(n - k));
        } else if (0 < n && n <= 21) {
            out.append(s, 0, n).append('.').append(s, n, k);
        } else if (-6 < n && n <= 0) {
            out.append("0.").append("0".repeat(-n)).append(s);
        } else {
            int e = n - 1;
            out.append(s.charAt(0));
            if (k > 1) {
                out.append('.').append(s, 1, k);
            }
            out.append('e').append(e < 0 ? '-' : '+').append(Math.abs(e));
        }
        return out.toString();
    }

    private static final double[] POW10 = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};

    /**
     * The common case without BigDecimal: a positive double that is {@code d / 10^k} for some
     * integer {@code d < 2^50} and {@code k <= 8} (0.25, 12, 0.731), as {@code d << 4 | k} for the
     * smallest such k, or -1. Sound because both operands of the check are exact doubles and the
     * division is correctly rounded, so it equals what parsing the decimal gives; and k-decimal
     * values are at least 4 ulps apart at that size, so the nearest one is the only one that can
     * read back as x: none with fewer decimals (fewer digits) does, and no other of this length.
     */
    private static long fewDecimals(double abs) {
        for (int k = 0; k < POW10.length; k++) {
            double scaled = abs * POW10[k];
            if (scaled >= 0x1p50) {
                return -1;
            }
            long d = Math.round(scaled);
            if (d > 0 && d / POW10[k] == abs) {
                return d << 4 | k;
            }
        }
        return -1;
    }

    /**
     * Shortest round-tripping decimal for a positive finite double, trailing zeros stripped.
     * For each precision p both p-digit neighbours of the exact value are tried, because near a
     * power of two the round-trip interval is asymmetric and the nearer neighbour may fall
     * outside it while the farther one is inside; among round-tripping candidates the nearer
     * wins, ties go to the even digit string (ECMA-262 note 2).
     */
    private static BigDecimal shortestDigits(double abs) {
        BigDecimal exact = new BigDecimal(abs);
        for (int p = 1; p <= 17; p++) {
            BigDecimal down = exact.round(new MathContext(p, RoundingMode.FLOOR));
            BigDecimal up = exact.round(new MathContext(p, RoundingMode.CEILING));
            boolean downOk = roundTrips(down, abs);
            boolean upOk = !up.equals(down) && roundTrips(up, abs);
            if (downOk && upOk) {
                int cmp = exact.subtract(down).compareTo(up.subtract(exact));
                if (cmp < 0) {
                    return down.stripTrailingZeros();
                } else if (cmp > 0) {
                    return up.stripTrailingZeros();
                }
                return (down.unscaledValue().testBit(0) ? up : down).stripTrailingZeros();
            } else if (downOk) {
                return down.stripTrailingZeros();
            } else if (upOk) {
                return up.stripTrailingZeros();
            }
        }
        // 17 significant digits always round-trip; unreachable for finite doubles.
        return exact.round(new MathContext(17, RoundingMode.HALF_EVEN)).stripTrailingZeros();
    }

    private static boolean roundTrips(BigDecimal candidate, double target) {
        // Double.parseDouble is correctly rounded (unlike BigDecimal.doubleValue on older JDKs).
        return Double.parseDouble(candidate.toString()) == target;
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    static void writeString(String s, StringBuilder sb) {
        sb.append('"');
        int len = s.length();
        // Most strings (ids, names, timestamps, prose) need no escape: copy them whole up to the first
        // character that may (a control, quote, backslash or surrogate), then go character by character.
        int plain = 0;
        while (plain < len) {
            char c = s.charAt(plain);
            if (c < 0x20 || c == '"' || c == '\\' || Character.isSurrogate(c)) {
                break;
            }
            plain++;
        }
        sb.append(s, 0, plain);
        for (int i = plain; i < len; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else if (Character.isSurrogate(c)) {
                        // A lone surrogate has no UTF-8 form; RFC 8785 §3.2.2.2 requires rejecting it.
                        if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                            sb.append(c).append(s.charAt(++i));
                        } else {
                            throw new IllegalArgumentException(
                                    "lone surrogate U+" + Integer.toHexString(c) + " at index " + i);
                        }
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
