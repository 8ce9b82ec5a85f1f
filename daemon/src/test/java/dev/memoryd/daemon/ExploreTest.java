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

/** explore over the example tree's typed links, through the socket. */
class ExploreTest extends ServedRootTest {
    static final String USER = "01JC7X00000000000000000001";
    static final String CRITIC = "01JC7X00000000000000000003";
    static final String CRITIC_NOTES = "01JC7X00000000000000000004";
    static final String YOUNG = "01JC7X00000000000000000005";
    static final String REL = "01JC7X00000000000000000007";

    private List<String> links(String params) throws Exception {
        JsonNode r = root.call("explore", params);
        assertTrue(r.has("result"), r.toString());
        List<String> out = new ArrayList<>();
        for (JsonNode l : r.get("result").get("links")) {
            out.add(l.get("rel").asText() + " " + l.get("to").asText()
                    + (l.get("inferred").asBoolean() ? " *" : ""));
        }
        return out;
    }

    @Test
    void createdPartAndRelationship_carryTheExampleTreesLinks_soExploreFromTheUserFindsThem() throws Exception {
        String part = "01JC7Y00000000000000000001";
        String partNotes = "01JC7Y00000000000000000002";
        String rel = "01JC7Y00000000000000000003";
        String relNotes = "01JC7Y00000000000000000004";
        JsonNode w = root.call(
                "write",
                "{\"rationale\":\"new part\",\"ops\":["
                        + "{\"op\":\"create_entity\",\"user_id\":\"sam\",\"entity_type\":\"part\",\"entity_id\":\"planner\","
                        + "\"title\":\"Planner\",\"slice_ids\":[\"" + part + "\",\"" + partNotes + "\"]},"
                        + "{\"op\":\"create_entity\",\"user_id\":\"sam\",\"entity_type\":\"relationship\",\"entity_id\":\"planner-calms-critic\","
                        + "\"title\":\"Planner calms Critic\",\"participants\":[\"planner\",\"inner-critic\"],"
                        + "\"slice_ids\":[\"" + rel + "\",\"" + relNotes + "\"]}]}");
        assertTrue(w.has("result"), w.toString());
        assertEquals(List.of("part_of " + USER), links("{\"id\":\"" + part + "\"}"));
        assertEquals(List.of("part_of " + part), links("{\"id\":\"" + partNotes + "\"}"));
        assertEquals(
                List.of("part_of " + USER, "see_also " + CRITIC, "see_also " + part),
                links("{\"id\":\"" + rel + "\"}"));
        assertEquals(List.of("part_of " + rel), links("{\"id\":\"" + relNotes + "\"}"));
        List<String> has = links("{\"id\":\"" + USER + "\",\"rel\":\"has_part\",\"infer\":true}");
        for (String id : List.of(part, partNotes, rel, relNotes)) {
            assertTrue(has.contains("has_part " + id + " *"), id + " in " + has);
        }
        assertTrue(root.call("lint", "{\"path\":\"users/sam/relationships/planner-calms-critic/profile.md\"}")
                .get("result")
                .get("problems")
                .isEmpty());
    }

    @Test
    void partCreatedWhenTemplatesHadNoLinks_stillReplaysToTheTextItRecorded() throws Exception {
        Path linkless = tmp.resolve("linkless-templates");
        Files.createDirectories(linkless);
        for (String f : List.of("grammar.yaml", "user.md", "part.md", "relationship.md", "notes.md")) {
            Files.writeString(
                    linkless.resolve(f),
                    Files.readString(Path.of("..", "templates", f))
                            .replaceAll("(?m)^  links:\n(?:    - .*\n|      .*\n)+", "  links: []\n"));
        }
        root.daemon.close();
        root.cfg = root.cfg.withTemplatesDir(linkless);
        root.serve();
        String create = "{\"rationale\":\"r\",\"ops\":[{\"op\":\"create_entity\",\"user_id\":\"sam\","
                + "\"entity_type\":\"part\",\"entity_id\":\"ID\",\"title\":\"T\"}]}";
        assertTrue(root.call("write", create.replace("ID", "older")).has("result"));
        assertTrue(root.file("users/sam/parts/older/profile.md").contains("  links: []\n"));
        root.daemon.close();
        root.cfg = root.cfg.withTemplatesDir(null);
        root.serve();
        assertTrue(root.call("write", create.replace("ID", "newer")).has("result"));
        assertTrue(
                root.file("users/sam/parts/newer/profile.md").contains("    - rel: part_of\n      to: " + USER + "\n"));
        JsonNode replay = root.call("replay", "{\"verify\":true}").get("result");
        assertTrue(replay.get("ok").asBoolean(), "both replay byte for byte: " + replay);
    }

    @Test
    void statedLinks_only_withoutInfer() throws Exception {
        List<String> l = links("{\"id\":\"" + CRITIC_NOTES + "\"}");
        assertEquals(List.of("part_of " + CRITIC), l);
    }

    @Test
    void transitiveInverseAndSymmetric_inferred() throws Exception {
        List<String> l = links("{\"id\":\"" + CRITIC_NOTES + "\",\"infer\":true}");
        assertTrue(l.contains("part_of " + USER + " *"), l.toString());
        List<String> has = links("{\"id\":\"" + USER + "\",\"rel\":\"has_part\",\"infer\":true}");
        assertTrue(has.contains("has_part " + CRITIC + " *"), has.toString());
        assertTrue(has.contains("has_part " + CRITIC_NOTES + " *"), has.toString());
        List<String> sym = links("{\"id\":\"" + CRITIC + "\",\"rel\":\"see_also\",\"infer\":true}");
        assertEquals(List.of("see_also " + REL + " *"), sym);
        assertFalse(
                links("{\"id\":\"" + YOUNG + "\",\"rel\":\"see_also\",\"infer\":true}")
                        .contains("see_also " + CRITIC + " *"),
                "see_also must not chain through the relationship");
    }

    @Test
    void cycles_terminate() throws Exception {
        Path f = root.dir.resolve("users/sam/overview.md");
        Files.writeString(
                f,
                Files.readString(f)
                        .replaceFirst("  links: \\[\\]", "  links:\n    - rel: part_of\n      to: " + CRITIC_NOTES));
        List<String> l = links("{\"id\":\"" + USER + "\",\"infer\":true}");
        assertFalse(l.isEmpty());
    }

    @Test
    void unknownRelationOrId_isPreciseError() throws Exception {
        assertEquals(
                "invalid_request",
                root.call("explore", "{\"id\":\"" + USER + "\",\"rel\":\"likes\"}")
                        .get("error")
                        .get("data")
                        .get("reason")
                        .asText());
        assertEquals(
                "not_found",
                root.call("explore", "{\"id\":\"01JC7X0000000000000000ZZZZ\"}")
                        .get("error")
                        .get("data")
                        .get("reason")
                        .asText());
        assertEquals(
                "invalid_request",
                root.call("explore", "{\"id\":\"" + USER + "\",\"infer\":\"yes\"}")
                        .get("error")
                        .get("data")
                        .get("reason")
                        .asText());
    }
}
