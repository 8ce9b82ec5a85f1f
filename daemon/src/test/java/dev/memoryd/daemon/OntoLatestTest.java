package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** replay --onto-latest: files restored from a backup are brought up to date from the ledger (file-grammar §10). */
class OntoLatestTest extends ServedRootTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    private void agentWrites() throws Exception {
        for (String s : new String[] {"Triggers", "Needs", "Allies"}) {
            JsonNode r = root.call(
                    "write",
                    "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC + "\",\"section\":\""
                            + s + "\",\"item\":\"after the backup: " + s + "\"}]}");
            assertTrue(r.has("result"), r.toString());
        }
        JsonNode r = root.call(
                "write",
                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_section\",\"path\":\"" + CRITIC
                        + "\",\"section\":\"Role\",\"content\":\"It also keeps the calendar.\"}]}");
        assertTrue(r.has("result"), r.toString());
    }

    private JsonNode onto() throws Exception {
        JsonNode r = root.call("replay", "{\"onto_latest\":true}");
        assertTrue(r.has("result"), r.toString());
        return r.get("result");
    }

    @Test
    void restoredBackup_getsTheNewerEvents_andEndsAtTheRecordedText() throws Exception {
        String backup = root.file(CRITIC);
        agentWrites();
        String latest = root.file(CRITIC);
        Files.writeString(root.dir.resolve(CRITIC), backup);
        JsonNode r = onto();
        assertEquals("applied", r.get("files").get(0).get("outcome").asText(), r.toString());
        assertEquals(4, r.get("files").get(0).get("applied").asInt());
        assertEquals(latest, root.file(CRITIC));
        assertTrue(
                root.call("replay", "{\"verify\":true}").get("result").get("ok").asBoolean());
        assertEquals(0, onto().get("files").size(), "nothing left to do");
    }

    @Test
    void backupWithAHeadingOneEditAway_isReanchoredOnce_andKeepsTheHumansOtherWords() throws Exception {
        String backup = root.file(CRITIC);
        agentWrites();
        String latest = root.file(CRITIC);
        Files.writeString(
                root.dir.resolve(CRITIC), backup.replace("## Role\n<!-- @anchor: role v1 -->\n", "## Roles\n"));
        JsonNode r = onto().get("files").get(0);
        assertEquals("applied", r.get("outcome").asText(), r.toString());
        assertEquals("role", r.get("reanchored").asText());
        assertEquals(latest, root.file(CRITIC));
    }

    @Test
    void backupWithAHeadingPastTheBound_haltsTheFile_andFlagsDrift() throws Exception {
        String backup = root.file(CRITIC);
        agentWrites();
        String broken = backup.replace("## Role\n<!-- @anchor: role v1 -->\n", "## Rules\n");
        Files.writeString(root.dir.resolve(CRITIC), broken);
        JsonNode r = onto();
        assertTrue(!r.get("ok").asBoolean());
        JsonNode f = r.get("files").get(0);
        assertEquals("halted", f.get("outcome").asText(), f.toString());
        assertTrue(f.get("halt").asText().contains("re-anchoring failed"), f.toString());
        assertEquals(broken, root.file(CRITIC), "a halted file is left as restored");
        root.call("capture", null);
        JsonNode items = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, items.size(), items.toString());
        assertEquals("replay_halted", items.get(0).get("kind").asText());
        assertEquals(
                "drift",
                root.call(
                                "write",
                                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                                        + "\",\"section\":\"Needs\",\"item\":\"x\"}]}")
                        .get("error")
                        .get("data")
                        .get("reason")
                        .asText());
    }

    @Test
    void backupEditedInASectionALaterEventChanged_halts_onTheBeforeHash() throws Exception {
        String backup = root.file(CRITIC);
        agentWrites();
        Files.writeString(
                root.dir.resolve(CRITIC),
                backup.replace("- Client feedback emails", "- Client feedback emails, mostly"));
        JsonNode f = onto().get("files").get(0);
        assertEquals("halted", f.get("outcome").asText(), f.toString());
        assertTrue(
                f.get("halt").asText().contains("differs from the text this event was written against"), f.toString());
    }
}
