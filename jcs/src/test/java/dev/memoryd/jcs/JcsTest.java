package dev.memoryd.jcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JcsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String resource(String name) throws IOException {
        try (InputStream in = JcsTest.class.getResourceAsStream("/jcs/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"arrays", "french", "simpleString", "structures", "unicode", "values", "weird"})
    void canonicalizesThePublishedJcsVectors(String name) throws IOException {
        JsonNode input = JSON.readTree(resource("input/" + name + ".json"));
        String expected = resource("output/" + name + ".json");
        assertEquals(expected, Jcs.canonicalize(input));
        assertEquals(expected, new String(Jcs.canonicalBytes(input), StandardCharsets.UTF_8));
    }

    @Test
    void serializesNumbersLikeEcmaScriptForRfc8785SamplesAndSevenThousandV8Oracles() throws IOException {
        int checked = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                JcsTest.class.getResourceAsStream("/jcs/es6numbers.txt"), StandardCharsets.US_ASCII))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] parts = line.split(",");
                double d = Double.longBitsToDouble(Long.parseUnsignedLong(parts[0], 16));
                assertEquals(parts[1], Jcs.es6Number(d), "bits " + parts[0]);
                checked++;
            }
        }
        assertEquals(7024, checked);
    }

    @Test
    void serializesTheDocumentedSampleValues() {
        assertEquals("1e+21", Jcs.es6Number(1e21));
        assertEquals("100000000000000000000", Jcs.es6Number(1e20));
        assertEquals("1e-7", Jcs.es6Number(1e-7));
        assertEquals("0.000001", Jcs.es6Number(1e-6));
        assertEquals("333333333.3333333", Jcs.es6Number(333333333.3333333));
        assertEquals("0", Jcs.es6Number(-0.0));
        assertEquals("5e-324", Jcs.es6Number(Double.MIN_VALUE));
        assertEquals("1.7976931348623157e+308", Jcs.es6Number(Double.MAX_VALUE));
        assertEquals("-1.5", Jcs.es6Number(-1.5));
    }

    @Test
    void treatsIntegersAsDoublesBeyondTwoToThe53() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        assertEquals("9007199254740991", Jcs.canonicalize(f.numberNode(9007199254740991L)));
        assertEquals("1152921504606847000", Jcs.canonicalize(f.numberNode(1L << 60)));
        assertEquals("1e+30", Jcs.canonicalize(f.numberNode(BigInteger.TEN.pow(30))));
        assertEquals("-42", Jcs.canonicalize(f.numberNode(-42)));
    }

    @Test
    void rejectsNonFiniteNumbersAndLoneSurrogates() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        assertThrows(IllegalArgumentException.class, () -> Jcs.canonicalize(f.numberNode(Double.NaN)));
        assertThrows(IllegalArgumentException.class, () -> Jcs.canonicalize(f.numberNode(Double.POSITIVE_INFINITY)));
        assertThrows(IllegalArgumentException.class, () -> Jcs.canonicalize(f.textNode("a\uD800b")));
        assertThrows(IllegalArgumentException.class, () -> Jcs.canonicalize(f.textNode("\uDC00")));
    }

    /** ECMAScript's JSON.stringify of a well-formed string, one character at a time. */
    private static String stringify(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> b.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        return b.append('"').toString();
    }

    @Test
    void escapesRandomStringsAsJsonStringifyDoes() {
        String pool = "ab Z09-:.é✓\u2028\u007f\"\\\b\f\n\r\t\u0000\u001f😀";
        java.util.Random r = new java.util.Random(3);
        JsonNodeFactory f = JsonNodeFactory.instance;
        for (int k = 0; k < 20_000; k++) {
            StringBuilder s = new StringBuilder();
            for (int i = r.nextInt(12); i > 0; i--) {
                int at = r.nextInt(pool.length());
                if (Character.isLowSurrogate(pool.charAt(at))) {
                    at--;
                }
                s.append(pool.charAt(at));
                if (Character.isHighSurrogate(pool.charAt(at))) {
                    s.append(pool.charAt(at + 1));
                }
            }
            String in = s.toString();
            assertEquals(stringify(in), Jcs.canonicalize(f.textNode(in)), in);
            if (!in.isEmpty() && r.nextInt(4) == 0) {
                String lone = in.substring(0, r.nextInt(in.length())) + "\ud800" + in;
                assertThrows(IllegalArgumentException.class, () -> Jcs.canonicalize(f.textNode(lone)), lone);
            }
        }
    }

    @Test
    void escapesOnlyWhatEcmaScriptEscapes() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        assertEquals(
                "\"\\b\\t\\n\\f\\r\\u0000\\u001f\\\"\\\\/\u007f\u2028\"",
                Jcs.canonicalize(f.textNode("\b\t\n\f\r\u0000\u001f\"\\/\u007f\u2028")));
    }
}
