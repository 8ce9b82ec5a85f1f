package dev.memoryd.grammar.policy;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * {@link DateTimeFormatter#ISO_INSTANT} for the timestamps turns carry, without the formatter in
 * the common case: {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z} with a year of four digits is read and
 * written by hand, anything else goes to the formatter, so results are the formatter's (the
 * formatter's parse and print were a tenth of a bulk append's CPU). Stateless.
 */
final class IsoInstants {
    private static final long MAX_FOUR_DIGIT_YEAR_SECOND =
            LocalDateTime.of(9999, 12, 31, 23, 59, 59).toEpochSecond(ZoneOffset.UTC);
    private static final long MIN_FOUR_DIGIT_YEAR_SECOND =
            LocalDateTime.of(0, 1, 1, 0, 0, 0).toEpochSecond(ZoneOffset.UTC);

    private IsoInstants() {}

    /** What {@code ISO_INSTANT.parse(s, Instant::from)} gives, or its exception. */
    static Instant parse(String s) {
        Instant fast = quick(s);
        return fast != null ? fast : DateTimeFormatter.ISO_INSTANT.parse(s, Instant::from);
    }

    /** {@link Instant#toString()}. */
    static String format(Instant t) {
        long sec = t.getEpochSecond();
        if (sec < MIN_FOUR_DIGIT_YEAR_SECOND || sec > MAX_FOUR_DIGIT_YEAR_SECOND) {
            return t.toString();
        }
        LocalDateTime d = LocalDateTime.ofEpochSecond(sec, 0, ZoneOffset.UTC);
        StringBuilder b = new StringBuilder(30);
        pad(b, d.getYear(), 4).append('-');
        pad(b, d.getMonthValue(), 2).append('-');
        pad(b, d.getDayOfMonth(), 2).append('T');
        pad(b, d.getHour(), 2).append(':');
        pad(b, d.getMinute(), 2).append(':');
        pad(b, d.getSecond(), 2);
        int nano = t.getNano();
        if (nano > 0) {
            b.append('.');
            if (nano % 1_000_000 == 0) {
                pad(b, nano / 1_000_000, 3);
            } else if (nano % 1_000 == 0) {
                pad(b, nano / 1_000, 6);
            } else {
                pad(b, nano, 9);
            }
        }
        return b.append('Z').toString();
    }

    private static StringBuilder pad(StringBuilder b, int v, int width) {
        String s = Integer.toString(v);
        for (int i = s.length(); i < width; i++) {
            b.append('0');
        }
        return b.append(s);
    }

    /** The instant of the common shape, or null to leave to the formatter. */
    private static Instant quick(String s) {
        int n = s.length();
        if (n < 20
                || n == 21
                || n > 30
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(10) != 'T'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':'
                || s.charAt(n - 1) != 'Z') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 7);
        int day = digits(s, 8, 10);
        int hour = digits(s, 11, 13);
        int minute = digits(s, 14, 16);
        int second = digits(s, 17, 19);
        int nano = 0;
        if (n > 20) {
            if (s.charAt(19) != '.') {
                return null;
            }
            int f = digits(s, 20, n - 1);
            if (f < 0) {
                return null;
            }
            nano = f;
            for (int i = n - 1 - 20; i < 9; i++) {
                nano *= 10;
            }
        }
        if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59) {
            return null;
        }
        if (second < 0 || second > 59 || day > LocalDate.of(year, month, 1).lengthOfMonth()) {
            return null;
        }
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600L + minute * 60L + second, nano);
    }

    /** The decimal number in {@code s[from, to)}, or -1 if it is not all ASCII digits. */
    private static int digits(String s, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
