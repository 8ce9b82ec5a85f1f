package dev.memoryd.grammar.slip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Base62Test {

    @Test
    void alphabet_isTheSpecsDigitsThenUpperThenLower() {
        assertEquals("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", Base62.ALPHABET);
    }

    @Test
    void specExamples_encodeAndDecode() {
        for (String line : SlipTestSupport.lines("slip/base62-examples.txt")) {
            String[] p = line.split(" ");
            long v = Long.parseLong(p[0]);
            assertEquals(p[1], Base62.encode(v), line);
            assertEquals(v, Base62.decode(p[1]), line);
        }
    }

    @Test
    void zero_isTheSingleDigitZero() {
        assertEquals("0", Base62.encode(0));
        assertEquals(0, Base62.decode("0"));
    }

    @Test
    void longMaxValue_roundTripsInElevenDigits() {
        assertEquals("AzL8n0Y58m7", Base62.encode(Long.MAX_VALUE));
        assertEquals(Base62.MAX_DIGITS, Base62.encode(Long.MAX_VALUE).length());
        assertEquals(Long.MAX_VALUE, Base62.decode("AzL8n0Y58m7"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"AzL8n0Y58m8", "AzL8n0Y58n0", "B00000000000", "zzzzzzzzzzz", "100000000000"})
    void valuesAboveLongMax_areRejectedAsOverflow(String s) {
        NumberFormatException e = assertThrows(NumberFormatException.class, () -> Base62.decode(s));
        assertTrue(e.getMessage().contains("exceeds"), e.getMessage());
    }

    @Test
    void overflow_isReportedAtTheDigitThatOverflows() {
        Base62.Malformed m = assertThrows(Base62.Malformed.class, () -> Base62.decode("AzL8n0Y58m8", 0, 11));
        assertTrue(m.overflow);
        assertEquals(10, m.index);
    }

    @Test
    void negative_cannotBeEncoded() {
        assertThrows(IllegalArgumentException.class, () -> Base62.encode(-1));
        assertThrows(IllegalArgumentException.class, () -> Base62.encode(Long.MIN_VALUE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-1", "+1", "1_0", " 1", "\u00e9", "00", "01"})
    void nonCanonicalSpellings_areRejected(String s) {
        assertThrows(NumberFormatException.class, () -> Base62.decode(s));
    }

    @Test
    void randomValues_matchBigIntegerReferenceAndRoundTrip() {
        Random rnd = new Random(62);
        BigInteger radix = BigInteger.valueOf(62);
        for (int i = 0; i < 2000; i++) {
            long v = SlipTestSupport.randomLong(rnd);
            String s = Base62.encode(v);
            BigInteger ref = BigInteger.ZERO;
            for (char c : s.toCharArray()) {
                ref = ref.multiply(radix).add(BigInteger.valueOf(Base62.ALPHABET.indexOf(c)));
            }
            assertEquals(BigInteger.valueOf(v), ref, s);
            assertEquals(v, Base62.decode(s), s);
        }
    }
}
