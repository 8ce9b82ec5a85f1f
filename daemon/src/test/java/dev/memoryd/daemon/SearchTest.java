package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** search through the daemon: sections and slices, updated by writes, hits with staleness. */
class SearchTest extends ServedRootTest {

    private JsonNode hits(String q) throws Exception {
        JsonNode r = root.call("search", "{\"q\":\"" + q + "\"}");
        assertTrue(r.has("result"), r.toString());
        return r.get("result").get("hits");
    }

    @Test
    void acknowledgedWrite_isSearchable_atOnce_withItsSectionAndStaleness() throws Exception {
        assertEquals(0, hits("marzipan").size());
        JsonNode w = root.call(
                "write",
                "{\"rationale\":\"t\",\"ops\":[{\"op\":\"append_item\",\"path\":"
                        + "\"users/sam/parts/inner-critic/profile.md\",\"section\":\"Triggers\",\"item\":\"Marzipan at family dinners\"}]}");
        assertTrue(w.has("result"), w.toString());
        JsonNode h = hits("marzipan");
        assertEquals(1, h.size(), h.toString());
        assertEquals(
                "users/sam/parts/inner-critic/profile.md", h.get(0).get("path").asText());
        assertEquals("Triggers", h.get(0).get("section").asText());
        assertEquals("main", h.get(0).get("branch").asText());
        assertEquals("FRESH", h.get(0).get("label").asText(), h.toString());
    }

    @Test
    void replacedText_disappearsFromResults() throws Exception {
        root.call(
                "write",
                "{\"rationale\":\"t\",\"ops\":[{\"op\":\"replace_section\",\"path\":"
                        + "\"users/sam/parts/inner-critic/profile.md\",\"section\":\"Role\",\"content\":\"Guards against quokkas.\"}]}");
        assertEquals(1, hits("quokkas").size());
        root.call(
                "write",
                "{\"rationale\":\"t\",\"ops\":[{\"op\":\"replace_section\",\"path\":"
                        + "\"users/sam/parts/inner-critic/profile.md\",\"section\":\"Role\",\"content\":\"Guards the schedule.\"}]}");
        assertEquals(0, hits("quokkas").size());
    }

    @Test
    void sectionsUpdatedInPlace_searchAsAFreshIndexOfTheSameFilesDoes() throws Exception {
        String path = "users/sam/parts/inner-critic/profile.md";
        for (String op : new String[] {
            "{\"op\":\"append_item\",\"path\":\"" + path + "\",\"section\":\"Triggers\",\"item\":\"Quince jam\"}",
            "{\"op\":\"replace_section\",\"path\":\"" + path
                    + "\",\"section\":\"Role\",\"content\":\"Keeps quince lists.\"}",
            "{\"op\":\"append_item\",\"path\":\"" + path + "\",\"section\":\"Needs\",\"item\":\"More quince\"}",
            "{\"op\":\"replace_section\",\"path\":\"" + path + "\",\"section\":\"Role\",\"content\":\"Keeps lists.\"}"
        }) {
            JsonNode w = root.call("write", "{\"rationale\":\"t\",\"ops\":[" + op + "]}");
            assertTrue(w.has("result"), w.toString());
        }
        String[] queries = {"quince", "lists", "critic", "sam", "family"};
        java.util.List<java.util.Set<String>> updated = new java.util.ArrayList<>();
        for (String q : queries) {
            updated.add(found(q));
        }
        assertEquals(
                java.util.List.of(path + " Needs FRESH", path + " Triggers FRESH"),
                updated.get(0).stream().map(h -> h.substring(0, h.indexOf('|'))).toList(),
                "the Role no longer says quince; the other two sections still do");
        root.close();
        root.serve(); // a fresh index of the same files
        for (int i = 0; i < queries.length; i++) {
            assertEquals(found(queries[i]), updated.get(i), queries[i]);
        }
    }

    /** Each hit as its path, section, label, then after a {@code |} its snippet. */
    private java.util.Set<String> found(String q) throws Exception {
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (JsonNode h : hits(q)) {
            out.add(h.path("path").asText() + " " + h.path("section").asText() + " "
                    + h.path("label").asText() + "|" + h.path("snippet").asText());
        }
        return out;
    }

    @Test
    void jsonlRowStrings_areSearchable_andStaleRowsSaySo() throws Exception {
        JsonNode c = root.call(
                "slices.create",
                "{\"slice\":{\"title\":\"Decisions\",\"summary\":\"Plan.\",\"body\":{\"type\":\"jsonl\"}}}");
        String id = c.get("result").get("id").asText();
        root.call(
                "append_row",
                "{\"id\":\"" + id + "\",\"row\":{\"_meta\":{\"id\":\"r1\",\"created_at\":\"2020-01-01T00:00:00Z\"},"
                        + "\"text\":\"Switch to zeppelin commuting\"}}");
        JsonNode h = hits("zeppelin");
        assertEquals(1, h.size(), h.toString());
        assertEquals(id, h.get(0).get("slice_id").asText());
        assertEquals("STALE", h.get(0).get("label").asText());
    }

    @Test
    void aHiddenCopyOfAMemoryFile_isNeitherSearchedNorLinted() throws Exception {
        root.close();
        java.nio.file.Path backup = root.dir.resolve("users/sam/.backup/overview.md");
        java.nio.file.Files.createDirectories(backup.getParent());
        java.nio.file.Files.writeString(backup, "# not a memory file\n\nwombats everywhere\n");
        root.serve();
        assertEquals(0, hits("wombats").size(), "an editor's or a human's hidden copy is not memory");
        JsonNode lint = root.call("lint", "{}");
        assertEquals(0, lint.get("result").get("problems").size(), "the example tree lints clean: " + lint);
    }

    @Test
    void badQuery_isInvalidRequest() throws Exception {
        JsonNode r = root.call("search", "{\"q\":\"(unbalanced\"}");
        assertEquals("invalid_request", r.get("error").get("data").get("reason").asText(), r.toString());
    }

    @Test
    void everySearchHit_keepsItsWireKeysInOrder_withAbsentValuesAsNull() throws Exception {
        assertTrue(root.call(
                        "write",
                        "{\"rationale\":\"t\",\"ops\":[{\"op\":\"append_item\",\"path\":"
                                + "\"users/sam/parts/inner-critic/profile.md\",\"section\":\"Triggers\","
                                + "\"item\":\"Quokkas at the zoo\"}]}")
                .has("result"));
        String id = root.call(
                        "slices.create",
                        "{\"slice\":{\"title\":\"Decisions\",\"summary\":\"Plan.\",\"body\":{\"type\":\"jsonl\"}}}")
                .get("result")
                .get("id")
                .asText();
        root.call(
                "append_row",
                "{\"id\":\"" + id + "\",\"row\":{\"_meta\":{\"id\":\"r1\",\"created_at\":\"2020-01-01T00:00:00Z\"},"
                        + "\"text\":\"Quokkas in the plan\"}}");
        assertTrue(root.call(
                        "declare",
                        "{\"chunks\":[{\"name\":\"quokka-notes\",\"body\":{\"text\":\"Quokkas as chunks\"}}]}")
                .has("result"));
        JsonNode r = root.call("search", "{\"q\":\"quokkas\",\"limit\":10}").get("result");
        assertEquals(List.of("hits"), TestRoot.keys(r));
        assertEquals(3, r.get("hits").size(), r.toString());
        List<String> dated = List.of(
                "path",
                "section",
                "anchor",
                "slice_id",
                "chunk",
                "title",
                "branch",
                "score",
                "snippet",
                "label",
                "age",
                "tag");
        JsonNode section = hit(r, "section", "Triggers");
        assertEquals(dated, TestRoot.keys(section), section.toString());
        JsonNode row = hit(r, "slice_id", id);
        assertEquals(dated, TestRoot.keys(row), row.toString());
        assertTrue(
                row.get("section").isNull()
                        && row.get("anchor").isNull()
                        && row.get("chunk").isNull(),
                row.toString());
        JsonNode chunk = hit(r, "title", "quokka-notes");
        assertEquals(dated, TestRoot.keys(chunk), r.toString());

        String head = root.git("rev-parse", "HEAD").strip();
        JsonNode at = root.call("search", "{\"q\":\"quokkas\",\"at\":\"" + head + "\"}")
                .get("result");
        assertEquals(List.of("hits", "commit"), TestRoot.keys(at));
        assertEquals(dated, TestRoot.keys(hit(at, "section", "Triggers")));
    }

    /** The hit whose {@code key} is not null (and is {@code value}, when given). */
    private static JsonNode hit(JsonNode result, String key, String... value) {
        for (JsonNode h : result.get("hits")) {
            if (!h.path(key).isNull()
                    && !h.path(key).isMissingNode()
                    && (value.length == 0 || value[0].equals(h.get(key).asText()))) {
                return h;
            }
        }
        throw new AssertionError("no hit with " + key + " in " + result);
    }
}
