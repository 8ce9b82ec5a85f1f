package dev.memoryd.grammar.slip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SlipJsonTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE =
            "{\"conv_id\":3,\"turn\":1,\"src\":0,\"dst\":1,\"act\":\"REQUEST\",\"frame\":\"TASK\",";

    private static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new AssertionError(json, e);
        }
    }

    private static void assertError(String json, String fieldPath, String reason) {
        SlipJsonParse.Error e = assertInstanceOf(SlipJsonParse.Error.class, SlipJson.parse(tree(json)), json);
        assertEquals(reason, e.reason(), json + " -> " + e);
        assertEquals(fieldPath, e.fieldPath(), json + " -> " + e);
        if (!fieldPath.isEmpty()) {
            assertTrue(e.message().contains(fieldPath), e.message());
        }
    }

    @Test
    void toJson_writesTheDocumentedShapeInOrder() throws Exception {
        SlipMessage m = SlipMessage.of(
                3,
                1,
                0,
                Long.MAX_VALUE,
                Act.REQUEST,
                FrameType.TASK,
                Map.of(Slot.TAG, "refactor_auth", Slot.GOAL_ID, 17L, Slot.STATUS, "ok"));
        assertEquals(
                "{\"conv_id\":3,\"turn\":1,\"src\":0,\"dst\":9223372036854775807,\"act\":\"REQUEST\",\"frame\":\"TASK\","
                        + "\"slots\":{\"GOAL_ID\":17,\"STATUS\":\"ok\",\"TAG\":\"refactor_auth\"}}",
                JSON.writeValueAsString(SlipJson.toJson(m)));
    }

    @Test
    void canonicalJson_parsesAndWritesBackEqual() {
        String json = BASE + "\"slots\":{\"GOAL_ID\":17,\"TASK_ID\":42,\"PRIORITY\":2,\"TAG\":\"refactor_auth\"}}";
        SlipMessage m = assertInstanceOf(SlipJsonParse.Ok.class, SlipJson.parse(tree(json)))
                .message();
        assertEquals(tree(json), SlipJson.toJson(m));
        assertEquals("@a3|f0|c3|S0|d1|T1|gH|kg|q2|t\"refactor_auth\"#", Nslip.encode(m));
    }

    @Test
    void nonObject_isWrongTypeAtTheRoot() {
        assertError("[]", "", "wrong_type");
        assertError("\"@a3#\"", "", "wrong_type");
    }

    @Test
    void missingOrNullField_isMissingFieldNamingIt() {
        assertError(
                "{\"conv_id\":3,\"turn\":1,\"src\":0,\"dst\":1,\"act\":\"REQUEST\",\"frame\":\"TASK\"}",
                "slots",
                "missing_field");
        assertError(
                "{\"conv_id\":null,\"turn\":1,\"src\":0,\"dst\":1,\"act\":\"REQUEST\",\"frame\":\"TASK\",\"slots\":{}}",
                "conv_id",
                "missing_field");
        assertError(
                "{\"conv_id\":3,\"turn\":1,\"src\":0,\"act\":\"REQUEST\",\"frame\":\"TASK\",\"slots\":{}}",
                "dst",
                "missing_field");
    }

    @Test
    void unknownField_isRejectedNamingIt() {
        assertError(BASE + "\"slots\":{},\"nslip\":\"x\"}", "nslip", "unknown_field");
    }

    @Test
    void wrongTypes_areRejectedNamingTheFieldPath() {
        assertError(
                "{\"conv_id\":\"3\",\"turn\":1,\"src\":0,\"dst\":1,\"act\":\"REQUEST\",\"frame\":\"TASK\",\"slots\":{}}",
                "conv_id",
                "wrong_type");
        assertError(
                "{\"conv_id\":3,\"turn\":1.0,\"src\":0,\"dst\":1,\"act\":\"REQUEST\",\"frame\":\"TASK\",\"slots\":{}}",
                "turn",
                "wrong_type");
        assertError(
                "{\"conv_id\":3,\"turn\":1,\"src\":0,\"dst\":1,\"act\":3,\"frame\":\"TASK\",\"slots\":{}}",
                "act",
                "wrong_type");
        assertError(BASE + "\"slots\":[]}", "slots", "wrong_type");
        assertError(BASE + "\"slots\":{\"GOAL_ID\":\"17\"}}", "slots.GOAL_ID", "wrong_type");
        assertError(BASE + "\"slots\":{\"TAG\":5}}", "slots.TAG", "wrong_type");
        assertError(BASE + "\"slots\":{\"TAG\":null}}", "slots.TAG", "wrong_type");
        assertError(BASE + "\"slots\":{\"SCORE\":1e3}}", "slots.SCORE", "wrong_type");
    }

    @Test
    void integersOutsideTheLongRange_areOutOfRange() {
        assertError(
                "{\"conv_id\":3,\"turn\":1,\"src\":-1,\"dst\":1,\"act\":\"REQUEST\",\"frame\":\"TASK\",\"slots\":{}}",
                "src",
                "out_of_range");
        assertError(BASE + "\"slots\":{\"GOAL_ID\":9223372036854775808}}", "slots.GOAL_ID", "out_of_range");
    }

    @Test
    void unknownNames_areRejectedNamingTheField() {
        assertError(
                "{\"conv_id\":3,\"turn\":1,\"src\":0,\"dst\":1,\"act\":\"request\",\"frame\":\"TASK\",\"slots\":{}}",
                "act",
                "unknown_act");
        assertError(
                "{\"conv_id\":3,\"turn\":1,\"src\":0,\"dst\":1,\"act\":\"REQUEST\",\"frame\":\"TASKS\",\"slots\":{}}",
                "frame",
                "unknown_frame");
        assertError(BASE + "\"slots\":{\"GOAL_ID\":1,\"DEADLINE\":5}}", "slots.DEADLINE", "unknown_slot");
    }

    @Test
    void controlCharInStringSlot_isBadChar() {
        assertError(BASE + "\"slots\":{\"STATUS\":\"a\\u0007\"}}", "slots.STATUS", "bad_char");
    }
}
