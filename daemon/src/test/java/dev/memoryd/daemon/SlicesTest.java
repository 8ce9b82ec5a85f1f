package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Generic slices through the daemon: create, append_row under contracts, supersession, listings. */
class SlicesTest extends ServedRootTest {

    private String create(String contract) throws Exception {
        JsonNode r = root.call(
                "slices.create",
                "{\"slice\":{\"kind\":\"context\",\"title\":\"Decisions\","
                        + "\"summary\":\"Therapy plan decisions.\",\"body\":{\"type\":\"jsonl\"}" + contract + "}}");
        assertTrue(r.has("result"), r.toString());
        return r.get("result").get("id").asText();
    }

    private JsonNode row(String id, String row) throws Exception {
        return root.call("append_row", "{\"id\":\"" + id + "\",\"row\":" + row + "}");
    }

    private static String reason(JsonNode r) {
        return r.path("error").path("data").path("reason").asText("(no error: " + r + ")");
    }

    @Test
    void appendRows_supersessionKeepsHistory_activeRowsAreNewest() throws Exception {
        String id = create(",\"contract\":{\"write\":\"supersede\",\"overflow\":\"error\"}");
        assertTrue(row(
                        id,
                        "{\"_meta\":{\"id\":\"r1\",\"created_at\":\"2026-11-01T10:00:00Z\"},\"text\":\"Weekly sessions.\"}")
                .has("result"));
        assertTrue(row(
                        id,
                        "{\"_meta\":{\"id\":\"r2\",\"created_at\":\"2026-11-02T10:00:00Z\",\"supersedes\":[\"r1\"]},"
                                + "\"text\":\"Fortnightly sessions.\"}")
                .has("result"));
        JsonNode active = root.call("slices.rows", "{\"id\":\"" + id + "\"}")
                .get("result")
                .get("rows");
        assertEquals(1, active.size());
        assertEquals("r2", active.get(0).get("_meta").get("id").asText());
        JsonNode all = root.call("slices.rows", "{\"id\":\"" + id + "\",\"all\":true}")
                .get("result")
                .get("rows");
        assertEquals(2, all.size(), "supersession must not edit the old row in place");
        String file = root.file(".slices/" + id + ".slice");
        assertTrue(file.contains("\"Weekly sessions.\""), file);
        JsonNode replay = root.call("replay", "{\"verify\":true}").get("result");
        assertTrue(replay.get("ok").asBoolean(), "slice files replay byte for byte: " + replay);
        assertTrue(PayloadLines.assertTyped(root.dir) > 0, "every line recorded, read back typed, parses");
    }

    @Test
    void badRows_andContracts_areRefused_andRecordNothing() throws Exception {
        String id = create(",\"contract\":{\"write\":\"append\"}");
        String before = root.file(".slices/" + id + ".slice");
        assertEquals("spec_violation", reason(row(id, "{\"text\":\"no meta\"}")));
        JsonNode noTime = row(id, "{\"_meta\":{\"id\":\"z\"},\"text\":\"no created_at\"}");
        assertEquals("spec_violation", reason(noTime));
        assertEquals(
                "row._meta.created_at",
                noTime.get("error").get("data").get("field").asText(),
                noTime.toString());
        assertTrue(row(id, "{\"_meta\":{\"id\":\"a\",\"created_at\":\"2026-11-01T10:00:00Z\"},\"text\":\"x\"}")
                .has("result"));
        assertEquals(
                "spec_violation",
                reason(row(id, "{\"_meta\":{\"id\":\"a\",\"created_at\":\"2026-11-01T10:00:00Z\"},\"text\":\"dup\"}")));
        assertEquals(
                "prohibited",
                reason(row(
                        id,
                        "{\"_meta\":{\"id\":\"b\",\"created_at\":\"2026-11-01T10:00:00Z\","
                                + "\"supersedes\":[\"a\"]},\"text\":\"append-only slice\"}")));
        assertEquals("not_found", reason(row("01JNOPE0000000000000000000", "{}")));
        assertTrue(root.file(".slices/" + id + ".slice").startsWith(before));
        String locked = create(",\"contract\":{\"write\":\"error\"}");
        assertEquals(
                "prohibited",
                reason(row(locked, "{\"_meta\":{\"id\":\"c\",\"created_at\":\"2026-11-01T10:00:00Z\"}}")));
    }

    @Test
    void rowPastTheSizeLimit_withOverflowErrorOrNone_isCapExceededNamingTheOverflowRule() throws Exception {
        String text = "x".repeat(450_000);
        for (String contract : new String[] {",\"contract\":{\"overflow\":\"error\"}", ""}) {
            String id = create(contract);
            for (int i = 0; i < 2; i++) {
                assertTrue(
                        row(
                                        id,
                                        "{\"_meta\":{\"id\":\"r" + i
                                                + "\",\"created_at\":\"2026-11-01T10:00:00Z\"},\"text\":\"" + text
                                                + "\"}")
                                .has("result"),
                        "row " + i + " fits under 1 MiB");
            }
            String before = root.file(".slices/" + id + ".slice");
            JsonNode r = row(
                    id,
                    "{\"_meta\":{\"id\":\"r2\",\"created_at\":\"2026-11-01T10:00:00Z\"},\"text\":\"" + text + "\"}");
            assertEquals("cap_exceeded", reason(r), contract);
            assertEquals("overflow", r.get("error").get("data").get("rule").asText(), r.toString());
            assertEquals(before, root.file(".slices/" + id + ".slice"), "nothing was written");
        }
    }

    @Test
    void createInvalidSlice_isSpecViolation_namingTheField() throws Exception {
        JsonNode r = root.call(
                "slices.create", "{\"slice\":{\"title\":\"T\",\"summary\":\"S\",\"body\":{\"type\":\"video\"}}}");
        assertEquals("spec_violation", reason(r));
        assertTrue(r.toString().contains("slice.body.type"), r.toString());
        JsonNode p = root.call(
                "slices.create",
                "{\"slice\":{\"kind\":\"pointer\",\"title\":\"Dump\",\"summary\":\"Big.\","
                        + "\"body\":{\"type\":\"none\"},\"payload\":{\"uri\":\"./dump.json.gz\",\"size\":10}}}");
        assertTrue(p.has("result"), p.toString());
    }

    @Test
    void list_showsFreshOrStale_withAge() throws Exception {
        String id = create("");
        row(id, "{\"_meta\":{\"id\":\"old\",\"created_at\":\"2020-01-01T00:00:00Z\"},\"text\":\"old news\"}");
        JsonNode items = root.call("slices.list", null).get("result").get("items");
        JsonNode mine = null;
        for (JsonNode i : items) {
            if (id.equals(i.get("id").asText())) {
                mine = i;
            }
        }
        assertTrue(mine != null, items.toString());
        assertEquals("STALE", mine.get("label").asText(), mine.toString());
        assertTrue(mine.get("tag").asText().startsWith("[STALE - "), mine.toString());
        assertTrue(items.size() >= 9, "memory files are listed too: " + items.size());
    }

    @Test
    void everySlicesListItem_keepsItsWireKeysInOrder_withAbsentValuesAsNull() throws Exception {
        String source = create("");
        row(source, "{\"_meta\":{\"id\":\"r1\",\"created_at\":\"2026-11-01T10:00:00Z\"},\"text\":\"x\"}");
        JsonNode derived = root.call(
                "slices.create",
                "{\"slice\":{\"kind\":\"context\",\"title\":\"Digest\",\"summary\":\"Of the decisions.\","
                        + "\"body\":{\"type\":\"markdown\"},\"derived_from\":{\"id\":\"" + source
                        + "\",\"hash\":\"sha256:" + "0".repeat(64) + "\"}}}");
        assertTrue(derived.has("result"), derived.toString());
        Files.writeString(
                root.dir.resolve(".slices/bare.slice"),
                "---\nslice:\n  v: \"1\"\n  id: bare\n  summary: No title, no date.\n  body:\n    type: none\n---\n");
        JsonNode r = root.call("slices.list", null).get("result");
        assertEquals(List.of("items"), TestRoot.keys(r));
        List<String> dated =
                List.of("id", "path", "title", "kind", "body_type", "updated", "staleness", "label", "age", "tag");
        assertEquals(dated, TestRoot.keys(item(r, source)));
        JsonNode d = item(r, derived.get("result").get("id").asText());
        List<String> withSource = new java.util.ArrayList<>(dated);
        withSource.add("derived_from");
        assertEquals(withSource, TestRoot.keys(d));
        assertEquals(List.of("id", "status"), TestRoot.keys(d.get("derived_from")));
        assertEquals(source, d.get("derived_from").get("id").asText());
        assertEquals("STALE", d.get("derived_from").get("status").asText());
        assertEquals("Digest", d.get("title").asText());
        JsonNode bare = item(r, "bare");
        assertEquals(List.of("id", "path", "title", "kind", "body_type"), TestRoot.keys(bare));
        assertTrue(bare.get("title").isNull(), bare.toString());
        assertEquals("context", bare.get("kind").asText(), "the kind a slice has when it names none");
        assertEquals("none", bare.get("body_type").asText());
        assertEquals(".slices/bare.slice", bare.get("path").asText());
    }

    private static JsonNode item(JsonNode list, String id) {
        for (JsonNode i : list.get("items")) {
            if (id.equals(i.path("id").asText())) {
                return i;
            }
        }
        throw new AssertionError("no item " + id + " in " + list);
    }
}
