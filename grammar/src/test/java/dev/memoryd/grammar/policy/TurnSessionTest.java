package dev.memoryd.grammar.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class TurnSessionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode turn(String sessionMember) throws Exception {
        return JSON.readTree("{\"id\":\"00000000-0000-4000-8000-000000000001\"," + sessionMember
                + "\"role\":\"user\",\"phase\":\"planning\",\"salience\":0.5,\"trajectory_depth\":0,"
                + "\"trajectory_sibling_order\":0,\"trajectory_homogeneity\":0.5,\"trajectory_temporal\":0.5,"
                + "\"trajectory_complexity\":1.0,\"created_at\":\"2026-01-01T00:00:00Z\"}");
    }

    @Test
    void aTurnWithoutSessionTakesTheGivenOne_andItsOwnWinsOtherwise() throws Exception {
        assertEquals("s1", Turn.fromJson(turn(""), "turns[0]", "s1").sessionId());
        assertEquals(
                "s2",
                Turn.fromJson(turn("\"session_id\":\"s2\","), "turns[0]", "s1").sessionId());
        JsonNode without = turn("");
        Turn.fromJson(without, "turns[0]", "s1");
        assertTrue(!without.has("session_id"), "the input is not changed");
    }

    @Test
    void aNullOrMissingSessionWithoutADefaultIsRefused() throws Exception {
        PolicyInputException nul = assertThrows(
                PolicyInputException.class, () -> Turn.fromJson(turn("\"session_id\":null,"), "turns[0]", "s1"));
        assertEquals("turns[0].session_id", nul.field());
        PolicyInputException missing =
                assertThrows(PolicyInputException.class, () -> Turn.fromJson(turn(""), "turns[0]"));
        assertEquals("turns[0].session_id", missing.field());
    }
}
