package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import dev.memoryd.ledger.EventId;
import dev.memoryd.ledger.EvidenceToken;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@code resolve} answers the commit that recorded the event, as plain git shows it. */
class ResolveCommitTest extends ServedRootTest {
    static final String YOUNG = "users/sam/parts/young-one/profile.md";

    private JsonNode write(String rationale, String ops) throws Exception {
        return ok(
                "write",
                "{\"rationale\":" + JsonRpc.MAPPER.writeValueAsString(rationale) + ",\"actor\":\"agent-1\",\"ops\":["
                        + ops + "]}");
    }

    private static String item(String section, String text) {
        return "{\"op\":\"append_item\",\"path\":\"" + YOUNG + "\",\"section\":\"" + section + "\",\"item\":\"" + text
                + "\"}";
    }

    @Test
    void eachEvent_answersTheCommitWhoseTrailerNamesIt() throws Exception {
        String importCommit = root.git("rev-parse", "HEAD").strip();
        JsonNode imported = ok("history", "{\"path\":\"" + YOUNG + "\",\"limit\":1}")
                .path("events")
                .get(0);
        JsonNode w = write("two needs", item("Needs", "Rest") + "," + item("Triggers", "Noise"));
        JsonNode later = write("one more", item("Needs", "Quiet"));
        for (JsonNode e : w.path("events")) {
            assertEquals(
                    w.path("commit").asText(),
                    ok("resolve", "{\"token\":\"" + e.path("token").asText() + "\"}")
                            .path("commit")
                            .asText());
            assertTrue(root.git("show", "-s", "--format=%B", w.path("commit").asText())
                    .contains("Memoryd-Event: " + e.path("event_id").asText()));
        }
        assertEquals(
                later.path("commit").asText(),
                ok("resolve", "{\"token\":\"" + later.at("/events/0/token").asText() + "\"}")
                        .path("commit")
                        .asText());
        String importToken = EvidenceToken.of(
                        Instant.parse(imported.path("ts").asText()),
                        EventId.of(imported.path("event_id").asText()))
                .value();
        assertEquals(
                importCommit,
                ok("resolve", "{\"token\":\"" + importToken + "\"}")
                        .path("commit")
                        .asText());
    }

    @Test
    void aRationaleLookingLikeATrailer_doesNotClaimAnotherEvent() throws Exception {
        JsonNode first = write("first", item("Needs", "Rest"));
        String id = first.at("/events/0/event_id").asText();
        JsonNode forged = write("see below\n\nMemoryd-Event: " + id + "\n\nthat was a quote", item("Needs", "Quiet"));
        assertTrue(root.git("show", "-s", "--format=%B", forged.path("commit").asText())
                .contains("Memoryd-Event: " + id));
        assertEquals(
                first.path("commit").asText(),
                ok("resolve", "{\"token\":\"" + first.at("/events/0/token").asText() + "\"}")
                        .path("commit")
                        .asText());
    }
}
