package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code sections.*} over the socket of a served root with the example tree imported. */
class SectionsTest extends ServedRootTest {
    static final String YOUNG = "users/sam/parts/young-one/profile.md";

    private String reason(String method, String params) throws Exception {
        JsonNode r = root.call(method, params);
        assertTrue(r.has("error"), method + " " + params + " answered " + r);
        return r.at("/error/data/reason").asText();
    }

    private void write(String section, String content, String rationale) throws Exception {
        ok(
                "write",
                "{\"rationale\":\"" + rationale
                        + "\",\"actor\":\"agent-1\",\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + YOUNG
                        + "\",\"section\":\"" + section + "\",\"content\":\"" + content + "\"}]}");
    }

    @Test
    void list_givesEverySectionsTextAsReadDoes_withItsLastChange_theImportWhereNothingElse() throws Exception {
        write("Evolution", "Steadier now.", "seen in session");
        JsonNode list = ok("sections.list", "{\"path\":\"" + YOUNG + "\"}");
        JsonNode read = ok("read", "{\"path\":\"" + YOUNG + "\"}");
        assertEquals(read.path("commit"), list.path("commit"));
        assertEquals(read.path("sections").size(), list.path("sections").size());
        for (JsonNode s : list.path("sections")) {
            String anchor = s.path("anchor").asText();
            assertEquals(
                    ok("read", "{\"path\":\"" + YOUNG + "\",\"section\":\"" + anchor + "\"}")
                            .path("content")
                            .asText(),
                    s.path("content").asText(),
                    anchor);
            JsonNode last = s.path("last_change");
            if (anchor.equals("evolution")) {
                assertEquals("seen in session", last.path("rationale").asText());
                assertEquals("agent-1", last.path("actor").asText());
            } else {
                assertTrue(last.at("/payload/whole_file").asBoolean(), anchor + ": " + last);
            }
        }
    }

    @Test
    void history_pagesTheSectionNewestFirst_endingWithTheImport_whichHistoryLeavesOut() throws Exception {
        for (int i = 0; i < 5; i++) {
            write("Evolution", "Version " + i + ".", "step " + i);
        }
        write("Needs", "Rest.", "other section");
        JsonNode first = ok("sections.history", "{\"path\":\"" + YOUNG + "\",\"section\":\"Evolution\",\"limit\":2}");
        assertEquals("evolution", first.path("section").asText());
        assertEquals(6, first.path("total").asInt());
        assertEquals(List.of("step 4", "step 3"), rationales(first));
        JsonNode last = ok(
                "sections.history", "{\"path\":\"" + YOUNG + "\",\"section\":\"evolution\",\"offset\":4,\"limit\":5}");
        assertEquals(
                List.of("step 0", "captured 1 commit(s) made with git: memoryd: initialise memory repository"),
                rationales(last));
        assertEquals(
                5,
                ok("history", "{\"path\":\"" + YOUNG + "\",\"section\":\"evolution\"}")
                        .path("events")
                        .size(),
                "history with section counts only the events naming it");
    }

    @Test
    void aHeadingWithoutAnAnchor_isListedWithAJsonNullAnchor_andItsOwnText() throws Exception {
        Path f = root.dir.resolve(YOUNG);
        String text = Files.readString(f);
        Files.writeString(
                f, text.replace("## Change Log\n", "## Scratch\n\nA human's note, no anchor.\n\n## Change Log\n"));
        JsonNode scratch = null;
        for (JsonNode s : ok("sections.list", "{\"path\":\"" + YOUNG + "\"}").path("sections")) {
            if (s.path("name").asText().equals("Scratch")) {
                scratch = s;
            }
        }
        assertTrue(scratch != null, "the heading is listed");
        assertTrue(scratch.get("anchor").isNull(), scratch.toString());
        assertEquals(
                ok("read", "{\"path\":\"" + YOUNG + "\",\"section\":\"Scratch\"}")
                        .path("content")
                        .asText(),
                scratch.path("content").asText());
        assertEquals(
                "A human's note, no anchor.", scratch.path("content").asText().strip());
        assertFalse(scratch.path("locked").asBoolean());
        for (JsonNode s : ok("read", "{\"path\":\"" + YOUNG + "\"}").path("sections")) {
            assertEquals(
                    s.path("name").asText().equals("Scratch"), s.get("anchor").isNull(), s.toString());
        }
        JsonNode history = ok("sections.history", "{\"path\":\"" + YOUNG + "\",\"section\":\"Scratch\"}");
        assertTrue(history.get("section").isNull(), history.toString());
        assertEquals(
                "unknown_section",
                reason("sections.history", "{\"path\":\"" + YOUNG + "\",\"section\":\"null\"}"),
                "'null' names no section");
    }

    private static List<String> rationales(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.path("events").forEach(e -> out.add(e.path("rationale").asText()));
        return out;
    }

    @Test
    void badRequests_areRefusedPrecisely() throws Exception {
        assertEquals("not_found", reason("sections.list", "{\"path\":\"users/sam/parts/nobody/profile.md\"}"));
        assertEquals(
                "unknown_section", reason("sections.history", "{\"path\":\"" + YOUNG + "\",\"section\":\"Nope\"}"));
        assertEquals(
                "invalid_request",
                reason("sections.history", "{\"path\":\"" + YOUNG + "\",\"section\":\"role\",\"limit\":0}"));
        assertEquals("invalid_request", reason("sections.history", "{\"path\":\"" + YOUNG + "\"}"));
        assertEquals("invalid_request", reason("sections.list", "{\"path\":\"" + YOUNG + "\",\"extra\":1}"));
    }
}
