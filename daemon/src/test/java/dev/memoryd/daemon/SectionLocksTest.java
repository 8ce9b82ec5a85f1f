package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** {@code sections.lock} and {@code sections.unlock} over the socket, checked with plain git and replay. */
class SectionLocksTest extends ServedRootTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    static final String SAM = "human:Sam Human <sam@example.com>";

    private JsonNode call(String method, String section, String actor) throws Exception {
        return root.call(
                method,
                "{\"path\":\"" + CRITIC + "\",\"section\":\"" + section + "\",\"actor\":\"" + actor
                        + "\",\"rationale\":\"mine to keep\"}");
    }

    private JsonNode ok(JsonNode reply) {
        assertTrue(reply.has("result"), reply.toString());
        return reply.get("result");
    }

    private String reason(JsonNode reply) {
        assertTrue(reply.has("error"), reply.toString());
        return reply.at("/error/data/reason").asText();
    }

    private long lines() throws Exception {
        return ok(root.call("ledger.verify", null)).path("lines").asLong();
    }

    private boolean lockedInList(String anchor) throws Exception {
        for (JsonNode s :
                ok(root.call("sections.list", "{\"path\":\"" + CRITIC + "\"}")).path("sections")) {
            if (s.path("anchor").asText().equals(anchor)) {
                return s.path("locked").asBoolean();
            }
        }
        throw new AssertionError("no section " + anchor);
    }

    @Test
    void lock_isAHumansDeclaration_agentsAreThenRefused_andReplayGivesTheSameFile() throws Exception {
        JsonNode r = ok(call("sections.lock", "Role", SAM));
        assertTrue(r.path("changed").asBoolean() && r.path("locked").asBoolean(), r.toString());
        assertTrue(root.file(CRITIC).contains("\n    locked_sections: [role]\n"), root.file(CRITIC));
        assertEquals(
                "Sam Human <sam@example.com>",
                root.git("log", "-1", "--format=%an <%ae>").strip());
        assertEquals(r.path("commit").asText(), root.git("rev-parse", "HEAD").strip());
        assertTrue(root.git("log", "-1", "--format=%B")
                .contains("Memoryd-Event: " + r.path("event_id").asText()));
        JsonNode event =
                ok(root.call("resolve", "{\"token\":\"" + r.path("token").asText() + "\"}"));
        assertEquals("section_lock", event.path("op").asText());
        assertEquals("role", event.path("section_anchor").asText());
        assertEquals(SAM, event.path("actor").asText());
        assertEquals("mine to keep", event.path("rationale").asText());
        assertTrue(lockedInList("role") && !lockedInList("needs"));

        JsonNode agent = root.call(
                "write",
                "{\"rationale\":\"reframe\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"replace_section\"," + "\"path\":\""
                        + CRITIC + "\",\"section\":\"Role\",\"content\":\"Mine now.\"}]}");
        assertEquals("section_locked", reason(agent));
        assertTrue(
                ok(root.call("replay", "{\"verify\":true}")).path("ok").asBoolean(),
                "replay redoes the lock from its event");
    }

    @Test
    void lockAndUnlock_areIdempotent_andUnlockingGivesBackTheFileAsItWas() throws Exception {
        String before = root.file(CRITIC);
        ok(call("sections.lock", "role", SAM));
        long afterLock = lines();
        String head = root.git("rev-parse", "HEAD").strip();
        JsonNode again = ok(call("sections.lock", "Role", SAM));
        assertFalse(again.path("changed").asBoolean());
        assertEquals(head, again.path("commit").asText());
        assertEquals(afterLock, lines());
        assertTrue(ok(call("sections.unlock", "role", SAM)).path("changed").asBoolean());
        assertEquals(before, root.file(CRITIC));
        assertFalse(ok(call("sections.unlock", "role", SAM)).path("changed").asBoolean());
        assertEquals(afterLock + 1, lines());
        assertFalse(lockedInList("role"));
        assertTrue(PayloadLines.assertTyped(root.dir) > 0, "every line recorded, read back typed, parses");
    }

    @Test
    void aHumansOwnBlockList_keepsItsEntries_andAnEntryByHeadingIsUnlocked() throws Exception {
        String t = root.file(CRITIC);
        Files.writeString(
                root.dir.resolve(CRITIC),
                t.replace("    last_updated:", "    locked_sections:\n      - Needs\n    last_updated:"));
        assertTrue(ok(root.call("capture", null)).path("captured").asBoolean());
        assertTrue(lockedInList("needs"));
        ok(call("sections.lock", "role", SAM));
        assertTrue(root.file(CRITIC).contains("    locked_sections: [Needs, role]\n"), root.file(CRITIC));
        ok(call("sections.unlock", "needs", SAM));
        assertTrue(root.file(CRITIC).contains("    locked_sections: [role]\n"), root.file(CRITIC));
        assertTrue(lockedInList("role") && !lockedInList("needs"));
        assertTrue(ok(root.call("replay", "{\"verify\":true}")).path("ok").asBoolean());
    }

    @Test
    void refusals_namePrecisely_whatIsWrong_andChangeNothing() throws Exception {
        String before = root.file(CRITIC);
        long lines = lines();
        assertEquals("prohibited", reason(call("sections.lock", "role", "agent-7")));
        assertEquals("prohibited", reason(call("sections.unlock", "role", "agent:claude")));
        assertEquals("unknown_section", reason(call("sections.lock", "Nope", SAM)));
        assertEquals(
                "not_found",
                reason(root.call(
                        "sections.lock",
                        "{\"path\":\"users/sam/parts/nobody/profile.md\"," + "\"section\":\"role\",\"actor\":\"" + SAM
                                + "\"}")));
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "sections.lock",
                        "{\"path\":\".slices/x.slice\",\"section\":\"role\"," + "\"actor\":\"" + SAM + "\"}")));
        assertEquals(
                "invalid_request",
                reason(root.call("sections.lock", "{\"path\":\"" + CRITIC + "\",\"section\":\"role\"}")));
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "sections.lock",
                        "{\"path\":\"" + CRITIC + "\",\"section\":\"role\"," + "\"actor\":\"" + SAM
                                + "\",\"until\":\"later\"}")));
        assertEquals(before, root.file(CRITIC));
        assertEquals(lines, lines());
    }
}
