package dev.memoryd.grammar.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IsoInstantsTest {
    private static final long YEAR_0 = -62_167_219_200L;
    private static final long YEAR_10000 = 253_402_300_800L;

    private static Instant randomInstant(Random r) {
        long sec = switch (r.nextInt(4)) {
            case 0 -> YEAR_0 + (long) (r.nextDouble() * (YEAR_10000 - YEAR_0));
            case 1 -> 1_700_000_000L + r.nextInt(200_000_000);
            case 2 -> (r.nextBoolean() ? YEAR_0 : YEAR_10000) + r.nextInt(200_000) - 100_000;
            default -> r.nextLong() % 900_000_000_000L;
        };
        int nano = switch (r.nextInt(4)) {
            case 0 -> 0;
            case 1 -> r.nextInt(1000) * 1_000_000;
            case 2 -> r.nextInt(1_000_000) * 1_000;
            default -> r.nextInt(1_000_000_000);
        };
        return Instant.ofEpochSecond(sec, nano);
    }

    /** The formatter's answer: the instant, or the exception's class. */
    private static Object formatter(String s) {
        try {
            return DateTimeFormatter.ISO_INSTANT.parse(s, Instant::from);
        } catch (DateTimeParseException e) {
            return e.getClass();
        }
    }

    private static Object ours(String s) {
        try {
            return IsoInstants.parse(s);
        } catch (DateTimeParseException e) {
            return e.getClass();
        }
    }

    @Test
    void printsAsInstantToString() {
        Random r = new Random(11);
        for (int i = 0; i < 50_000; i++) {
            Instant t = randomInstant(r);
            assertEquals(t.toString(), IsoInstants.format(t), t::toString);
        }
    }

    @Test
    void readsAsTheIsoInstantFormatter() {
        Random r = new Random(12);
        String digits = "0123456789";
        String other = "0123456789-:.TZtz +";
        for (int i = 0; i < 50_000; i++) {
            String s = randomInstant(r).toString();
            if (r.nextBoolean() && s.length() == 20) {
                // a fraction of any length from 1 to 10 digits
                StringBuilder f = new StringBuilder(".");
                for (int k = r.nextInt(10) + 1; k > 0; k--) {
                    f.append(digits.charAt(r.nextInt(10)));
                }
                s = s.substring(0, 19) + f + "Z";
            }
            StringBuilder m = new StringBuilder(s);
            switch (r.nextInt(5)) {
                case 0 -> m.setCharAt(r.nextInt(m.length()), other.charAt(r.nextInt(other.length())));
                case 1 -> m.deleteCharAt(r.nextInt(m.length()));
                case 2 -> m.insert(r.nextInt(m.length() + 1), other.charAt(r.nextInt(other.length())));
                default -> {}
            }
            String in = m.toString();
            assertEquals(formatter(in), ours(in), in);
        }
    }

    @Test
    void readsTheEdgesAsTheFormatterDoes() {
        for (String s : new String[] {
            "2024-02-29T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2024-12-31T23:59:60Z",
            "2024-12-31T24:00:00Z",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999Z",
            "2024-01-01T00:00:00.Z",
            "2024-01-01T00:00:00.1234567890Z",
            "+10000-01-01T00:00:00Z",
            "2024-1-01T00:00:00Z",
            "2024-01-01t00:00:00Z",
            "2024-01-01T00:00:00z",
            "2024-13-01T00:00:00Z",
            "2024-00-10T00:00:00Z",
            "2024-01-00T00:00:00Z",
            "2024-01-01T00:60:00Z",
            "2024-01-01T00:00:00.5Z"
        }) {
            assertEquals(formatter(s), ours(s), s);
        }
    }
}
