package dev.memoryd.grammar.slip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NslipTest {

    /** The spec's §4 example; char offsets are noted where tests point into it. */
    private static final String SPEC = "@a3|f0|c3|S0|d1|T1|gH|kg|q2|t\"refactor_auth\"#";
    /** Header only, length 18; a slot field starts at offset 19. */
    private static final String H = "@a3|f0|c3|S0|d1|T1";

    private static SlipMessage ok(String input) {
        SlipParse p = Nslip.decode(input);
        if (p instanceof SlipParse.Error e) {
            throw new AssertionError("rejected " + input + ": " + e);
        }
        return ((SlipParse.Ok) p).message();
    }

    private static void assertError(String input, int position, String reason) {
        SlipParse p = Nslip.decode(input);
        SlipParse.Error e = assertInstanceOf(SlipParse.Error.class, p, input);
        assertEquals(reason, e.reason(), input + " -> " + e);
        assertEquals(position, e.position(), input + " -> " + e);
        assertTrue(e.message().contains("position " + position), e.message());
    }

    @Test
    void everySpecExample_decodesAndReencodesByteIdentically() throws Exception {
        List<String> examples = SlipTestSupport.lines("slip/spec-examples.nslip");
        assertFalse(examples.isEmpty());
        for (String ex : examples) {
            assertEquals(ex, Nslip.encode(ok(ex)));
        }
        SlipMessage logical = assertInstanceOf(
                        SlipJsonParse.Ok.class,
                        SlipJson.parse(new ObjectMapper()
                                .readTree(SlipTestSupport.resource("slip/spec-example-request-task.json"))))
                .message();
        assertEquals(logical, ok(examples.get(0)));
        assertEquals(SPEC, examples.get(0));
    }

    @Test
    void specRequestExample_hasTheSpecsLogicalValues() {
        SlipMessage m = ok(SPEC);
        assertEquals(
                SlipMessage.of(
                        3,
                        1,
                        0,
                        1,
                        Act.REQUEST,
                        FrameType.TASK,
                        Map.of(Slot.GOAL_ID, 17L, Slot.TASK_ID, 42L, Slot.PRIORITY, 2L, Slot.TAG, "refactor_auth")),
                m);
    }

    @Test
    void encode_writesHeaderInOrderThenSlotsInCodeOrder() {
        SlipMessage m = SlipMessage.of(
                62,
                61,
                10,
                0,
                Act.META,
                FrameType.CONTROL,
                Map.of(
                        Slot.TAG,
                        "x",
                        Slot.ERROR_CODE,
                        1L,
                        Slot.STATUS,
                        "s",
                        Slot.SCORE,
                        2L,
                        Slot.PRIORITY,
                        3L,
                        Slot.RESULT_ID,
                        4L,
                        Slot.PARENT_TASK_ID,
                        5L,
                        Slot.TASK_ID,
                        6L,
                        Slot.GOAL_ID,
                        7L));
        assertEquals("@aA|f4|c10|SA|d0|Tz|g7|k6|p5|r4|q3|s2|u\"s\"|e1|t\"x\"#", Nslip.encode(m));
    }

    @Test
    void encode_escapesOnlyBackslashAndQuote() {
        SlipMessage m = SlipMessage.of(
                0,
                0,
                0,
                0,
                Act.OBSERVE,
                FrameType.TASK,
                Map.of(Slot.TAG, "a\\b\"c|#@ \u00e9\ud83d\ude00", Slot.STATUS, ""));
        String wire = Nslip.encode(m);
        assertEquals("@a0|f0|c0|S0|d0|T0|u\"\"|t\"a\\\\b\\\"c|#@ \u00e9\ud83d\ude00\"#", wire);
        assertEquals(m, ok(wire));
    }

    @Test
    void decode_acceptsSlotsInAnyOrderAndReencodesCanonically() {
        SlipMessage m = ok(H + "|t\"refactor_auth\"|q2|kg|gH#");
        assertEquals(SPEC, Nslip.encode(m));
    }

    @Test
    void decode_acceptsAMessageWithoutSlots() {
        assertEquals(Map.of(), ok(H + "#").slots());
    }

    @Test
    void decode_rejectsNull() {
        assertThrows(NullPointerException.class, () -> Nslip.decode(null));
    }

    // One test per reason, each pinning the exact position.

    @Test
    void missingAt_isReportedAtZero() {
        assertError("", 0, "missing_at");
        assertError("a3|f0|c3|S0|d1|T1#", 0, "missing_at");
        assertError(" " + SPEC, 0, "missing_at");
    }

    @Test
    void missingHash_isReportedAtTheEndOfInput() {
        assertError("@", 1, "missing_hash");
        assertError("@a3|f0|c3", 9, "missing_hash");
        assertError(H, 18, "missing_hash");
        assertError(H + "|", 19, "missing_hash");
        assertError(H + "|gH", 21, "missing_hash");
        assertError(H + "|t", 20, "missing_hash");
        assertError(H + "|t\"x\"", 23, "missing_hash");
    }

    @Test
    void missingField_isReportedWhereTheHeaderFieldWasExpected() {
        assertError("@a3|f0|S0|d1|T1#", 7, "missing_field");
        assertError("@f0|a3|c3|S0|d1|T1#", 1, "missing_field");
        assertError("@a3|f0#", 6, "missing_field");
        assertError("@a3|f0|c3|S0|d1|gH|T1#", 16, "missing_field");
    }

    @Test
    void emptyField_isReportedAtTheCharAfterTheSeparator() {
        assertError(H + "||gH#", 19, "empty_field");
        assertError(H + "|#", 19, "empty_field");
    }

    @Test
    void unknownPrefix_isReportedAtThePrefix() {
        assertError(H + "|gH|x5#", 22, "unknown_prefix");
        assertError(H + "|G5#", 19, "unknown_prefix");
    }

    @Test
    void duplicateField_isReportedAtTheRepeatedHeaderPrefix() {
        assertError(H + "|gH|c4#", 22, "duplicate_field");
        assertError(H + "|T2#", 19, "duplicate_field");
    }

    @Test
    void duplicateSlot_isReportedAtTheSecondOccurrence() {
        assertError(H + "|gH|kg|gH#", 25, "duplicate_slot");
        assertError(H + "|t\"a\"|t\"a\"#", 24, "duplicate_slot");
    }

    @Test
    void badBase62_isReportedAtTheOffendingChar() {
        assertError(H + "|g-1#", 20, "bad_base62");
        assertError(H + "|gH@#", 21, "bad_base62");
        assertError(H + "|g\"x\"#", 20, "bad_base62");
        assertError("@a3|f0|c03|S0|d1|T1#", 8, "bad_base62");
        assertError("@a|f0|c3|S0|d1|T1#", 2, "bad_base62");
        assertError(H + "|g#", 20, "bad_base62");
    }

    @Test
    void overflow_isReportedAtTheDigitThatOverflows() {
        assertError(H + "|gAzL8n0Y58m8#", 30, "overflow");
        assertError("@a3|f0|czzzzzzzzzzzzz|S0|d1|T1#", 18, "overflow");
        assertEquals(Long.MAX_VALUE, ok(H + "|gAzL8n0Y58m7#").slots().get(Slot.GOAL_ID));
    }

    @Test
    void unknownAct_isReportedAtTheActCode() {
        assertError("@aB|f0|c3|S0|d1|T1#", 2, "unknown_act");
        assertError("@a10|f0|c3|S0|d1|T1#", 2, "unknown_act");
    }

    @Test
    void unknownFrame_isReportedAtTheFrameCode() {
        assertError("@a3|f5|c3|S0|d1|T1#", 5, "unknown_frame");
    }

    @Test
    void expectedString_isReportedAtTheUnquotedValue() {
        assertError(H + "|tx#", 20, "expected_string");
        assertError(H + "|u5#", 20, "expected_string");
        assertError(H + "|t#", 20, "expected_string");
    }

    @Test
    void unterminatedString_isReportedAtTheOpeningQuote() {
        assertError(H + "|t\"abc#", 20, "unterminated_string");
        assertError(H + "|t\"ab\\", 20, "unterminated_string");
        assertError(H + "|gH|u\"ok\\\"#", 23, "unterminated_string");
    }

    @Test
    void badEscape_isReportedAtTheBackslash() {
        assertError(H + "|t\"a\\nb\"#", 22, "bad_escape");
        assertError(H + "|t\"\\u0041\"#", 21, "bad_escape");
    }

    @Test
    void badChar_isReportedAtTheControlCharOrUnpairedSurrogate() {
        assertError(H + "|t\"a\nb\"#", 22, "bad_char");
        assertError(H + "|t\"\u0000\"#", 21, "bad_char");
        assertError(H + "|t\"\ud800\"#", 21, "bad_char");
        assertError(H + "|t\"x\ude00\"#", 22, "bad_char");
    }

    @Test
    void expectedSeparator_isReportedAfterTheClosingQuote() {
        assertError(H + "|t\"a\"b#", 23, "expected_separator");
        assertError(H + "|t\"a\"\"#", 23, "expected_separator");
    }

    @Test
    void trailingInput_isReportedJustAfterTheHash() {
        assertError(SPEC + "\n", 45, "trailing_input");
        assertError(SPEC + SPEC, 45, "trailing_input");
        assertError(H + "##", 19, "trailing_input");
    }
}
