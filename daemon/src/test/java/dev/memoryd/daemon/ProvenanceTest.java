package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slices v1 provenance: opt-in per root ({@code provenance: true} in {@code memoryd.yaml}); then
 * every content write records {agent, session, source, confidence?, context?} in its events, and a
 * JSONL row in its {@code _meta.provenance}.
 */
class ProvenanceTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    @TempDir
    Path tmp;

    TestRoot root;

    private TestRoot serve(String settings) throws Exception {
        root = new TestRoot(tmp);
        if (settings != null) {
            Files.writeString(root.dir.resolve(RootSettings.FILE), settings);
        }
        return root.serve();
    }

    @AfterEach
    void close() {
        if (root != null) {
            root.close();
        }
    }

    private static String write(String extra) {
        return "{\"rationale\":\"test\",\"actor\":\"claude\",\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + CRITIC
                + "\",\"section\":\"Role\",\"content\":\"Keeps watch.\"}]" + extra + "}";
    }

    private String jsonlSlice() throws Exception {
        JsonNode r = root.call(
                "slices.create",
                "{\"slice\":{\"kind\":\"context\",\"title\":\"Facts\","
                        + "\"summary\":\"What we know.\",\"body\":{\"type\":\"jsonl\"}}}");
        assertTrue(r.has("result"), r.toString());
        return r.get("result").get("id").asText();
    }

    private JsonNode appendRow(String id, String rowId, String text, String extra) throws Exception {
        return root.call(
                "append_row",
                "{\"id\":\"" + id + "\",\"actor\":\"cursor\",\"row\":{\"_meta\":{\"id\":\"" + rowId
                        + "\",\"created_at\":\"2026-11-01T10:00:00Z\"},\"text\":\"" + text + "\"}" + extra + "}");
    }

    private JsonNode history(String path) throws Exception {
        return root.call("history", "{\"path\":\"" + path + "\"}").get("result").get("events");
    }

    private static String reason(JsonNode r) {
        return r.path("error").path("data").path("reason").asText("(no error: " + r + ")");
    }

    @Test
    void write_onAProvenanceRoot_recordsAgentSessionSourceConfidenceAndContext_inItsEvents() throws Exception {
        serve("provenance: true\n");
        JsonNode r = root.call(
                "write",
                write(",\"tool_call_id\":\"toolu_1\",\"source\":\"user-statement\","
                        + "\"confidence\":0.9,\"context\":\"said at the fourth appointment\""));
        assertTrue(r.has("result"), r.toString());
        JsonNode p = history(CRITIC).get(0).path("payload").path("provenance");
        assertEquals("claude", p.path("agent").asText(), p.toString());
        assertEquals(
                "toolu_1", p.path("session").asText(), "the tool-call id stands for the session when none is named");
        assertEquals("user-statement", p.path("source").asText());
        assertEquals(0.9, p.path("confidence").asDouble());
        assertEquals("said at the fourth appointment", p.path("context").asText());
        assertEquals(p, r.get("result").get("provenance"), "the reply says what was recorded");
    }

    @Test
    void session_isTheNamedSession_elseTheConnection_sameOnOneConnectionAndDifferentOnAnother() throws Exception {
        serve("provenance: true\n");
        String first;
        String second;
        try (SocketClient c = root.client()) {
            first = c.call("write", JsonRpc.MAPPER.readTree(write("")))
                    .get("result")
                    .get("provenance")
                    .get("session")
                    .asText();
            second = c.call("write", JsonRpc.MAPPER.readTree(write("").replace("Keeps watch.", "Keeps watch, still.")))
                    .get("result")
                    .get("provenance")
                    .get("session")
                    .asText();
        }
        assertTrue(first.startsWith("connection:"), first);
        assertEquals(first, second, "two writes on one connection are one session");
        JsonNode other = root.call("write", write("").replace("Keeps watch.", "Rests."));
        assertNotEquals(
                first, other.get("result").get("provenance").get("session").asText());
        JsonNode named = root.call(
                "write",
                write(",\"session_id\":\"s-42\",\"tool_call_id\":\"toolu_9\"").replace("Keeps watch.", "Waits."));
        assertEquals(
                "s-42", named.get("result").get("provenance").get("session").asText());
    }

    @Test
    void appendRow_writesMetaProvenance_slicesRowsShowIt_andReplayReproducesTheFile() throws Exception {
        serve("provenance: true\n");
        String id = jsonlSlice();
        JsonNode r = appendRow(id, "r1", "The API uses GraphQL", ",\"source\":\"inference\",\"session_id\":\"ec95\"");
        assertTrue(r.has("result"), r.toString());
        JsonNode row = root.call("slices.rows", "{\"id\":\"" + id + "\"}")
                .get("result")
                .get("rows")
                .get(0);
        JsonNode p = row.path("_meta").path("provenance");
        assertEquals("cursor", p.path("agent").asText(), row.toString());
        assertEquals("ec95", p.path("session").asText());
        assertEquals("inference", p.path("source").asText());
        assertFalse(p.has("confidence"), "what was not given is not recorded");
        assertTrue(root.file(".slices/" + id + ".slice").contains("\"provenance\":{\"agent\":\"cursor\""));
        assertEquals(
                p, history(".slices/" + id + ".slice").get(0).path("payload").path("provenance"));
        JsonNode replay = root.call("replay", "{\"verify\":true}").get("result");
        assertTrue(replay.get("ok").asBoolean(), "rows with provenance replay byte for byte: " + replay);
    }

    @Test
    void anIntegralConfidence_replaysToTheSameRowBytes() throws Exception {
        serve("provenance: true\n");
        String id = jsonlSlice();
        assertTrue(appendRow(id, "r1", "certain", ",\"confidence\":1").has("result"));
        assertTrue(appendRow(id, "r2", "unsure", ",\"confidence\":0.0005").has("result"));
        JsonNode replay = root.call("replay", "{\"verify\":true}").get("result");
        assertTrue(replay.get("ok").asBoolean(), "the ledger's canonical numbers replay to the row's: " + replay);
    }

    @Test
    void anUnknownSource_isRefusedNamingSource_andRecordsNothing() throws Exception {
        serve("provenance: true\n");
        String before = root.file(CRITIC);
        int events = history(CRITIC).size();
        for (String bad : new String[] {"\"rumour\"", "\"\"", "3"}) {
            JsonNode r = root.call("write", write(",\"source\":" + bad));
            assertEquals("invalid_request", reason(r), bad + " -> " + r);
            assertEquals("source", r.at("/error/data/field").asText(), r.toString());
        }
        JsonNode conf = root.call("write", write(",\"confidence\":1.5"));
        assertEquals("confidence", conf.at("/error/data/field").asText(), conf.toString());
        assertEquals(before, root.file(CRITIC));
        assertEquals(events, history(CRITIC).size());
    }

    @Test
    void aRowBringingItsOwnProvenance_isRefusedOnAProvenanceRoot_andKeptAsDataWhenOff() throws Exception {
        serve("provenance: true\n");
        String id = jsonlSlice();
        String before = root.file(".slices/" + id + ".slice");
        JsonNode r = root.call(
                "append_row",
                "{\"id\":\"" + id + "\",\"row\":{\"_meta\":{\"id\":\"r1\","
                        + "\"created_at\":\"2026-11-01T10:00:00Z\",\"provenance\":{\"agent\":\"someone-else\"}},\"text\":\"x\"}}");
        assertEquals("invalid_request", reason(r));
        assertEquals("row._meta.provenance", r.at("/error/data/field").asText());
        assertEquals(before, root.file(".slices/" + id + ".slice"));
    }

    @Test
    void search_bySource_findsOnlyRowsRecordedWithThatSource() throws Exception {
        serve("provenance: true\n");
        String id = jsonlSlice();
        assertTrue(appendRow(id, "r1", "GraphQL was stated", ",\"source\":\"user-statement\"")
                .has("result"));
        assertTrue(appendRow(id, "r2", "GraphQL was guessed", ",\"source\":\"inference\"")
                .has("result"));
        JsonNode stated = root.call("search", "{\"q\":\"stated\",\"source\":\"user-statement\"}")
                .get("result")
                .get("hits");
        assertEquals(1, stated.size(), stated.toString());
        assertEquals(id, stated.get(0).get("slice_id").asText());
        assertEquals("user-statement", stated.get(0).get("source").asText());
        assertEquals(
                List.of(
                        "path",
                        "section",
                        "anchor",
                        "slice_id",
                        "chunk",
                        "title",
                        "source",
                        "branch",
                        "score",
                        "snippet",
                        "label",
                        "age",
                        "tag"),
                TestRoot.keys(stated.get(0)));
        JsonNode none = root.call("search", "{\"q\":\"stated\",\"source\":\"inference\"}")
                .get("result")
                .get("hits");
        assertEquals(0, none.size(), "the stated row was not inferred: " + none);
        JsonNode all = root.call("search", "{\"q\":\"GraphQL\"}").get("result").get("hits");
        assertEquals(1, all.size(), "unfiltered, the slice is one hit: " + all);
        assertFalse(all.get(0).has("source"));
        assertEquals(
                "source",
                root.call("search", "{\"q\":\"x\",\"source\":\"gossip\"}")
                        .at("/error/data/field")
                        .asText());
    }

    @Test
    void declare_sliceCreate_andConversationAppend_recordProvenanceInTheirEvents() throws Exception {
        serve("provenance: true\n");
        JsonNode d = root.call(
                "declare",
                "{\"actor\":\"planner\",\"source\":\"observation\",\"chunks\":[{\"ref\":\"a\","
                        + "\"name\":\"turing\",\"body\":{\"text\":\"Alan Turing\"}}]}");
        assertTrue(d.has("result"), d.toString());
        String path = d.get("result").get("created").get(0).get("path").asText();
        JsonNode p = history(path).get(0).path("payload").path("provenance");
        assertEquals("planner", p.path("agent").asText(), p.toString());
        assertEquals("observation", p.path("source").asText());
        JsonNode s = root.call(
                "slices.create",
                "{\"source\":\"inference\",\"slice\":{\"kind\":\"context\",\"title\":\"T\","
                        + "\"summary\":\"S.\",\"body\":{\"type\":\"jsonl\"}}}");
        assertEquals(
                "inference",
                history(s.get("result").get("path").asText())
                        .get(0)
                        .at("/payload/provenance/source")
                        .asText());
        JsonNode c = root.call(
                "conversation.append",
                "{\"session_id\":\"s1\",\"source\":\"user-statement\",\"turns\":[{"
                        + "\"id\":\"00000000-0000-4000-8000-000000000001\",\"role\":\"user\",\"phase\":\"planning\",\"salience\":0.5,"
                        + "\"trajectory_depth\":0,\"trajectory_sibling_order\":0,\"trajectory_homogeneity\":0.5,\"trajectory_temporal\":0.5,"
                        + "\"trajectory_complexity\":1.0,\"created_at\":\"2026-01-01T00:00:00Z\"}]}");
        assertTrue(c.has("result"), c.toString());
        JsonNode cp = history(c.get("result").get("path").asText())
                .get(0)
                .path("payload")
                .path("provenance");
        assertEquals("s1", cp.path("session").asText(), "the conversation's session is the provenance session: " + cp);
        assertEquals("user-statement", cp.path("source").asText());
    }

    @Test
    void withProvenanceOff_nothingIsRecorded_rowsKeepTheirOwn_butABadSourceIsStillRefused() throws Exception {
        serve(null);
        JsonNode r = root.call("write", write(",\"source\":\"user-statement\""));
        assertTrue(r.has("result"), r.toString());
        assertFalse(r.get("result").has("provenance"), "a root with provenance off records none: " + r);
        assertFalse(history(CRITIC).get(0).path("payload").has("provenance"));
        assertEquals(
                "source",
                root.call("write", write(",\"source\":\"rumour\""))
                        .at("/error/data/field")
                        .asText(),
                "the parameters are checked on every root, so a request is valid or not wherever it goes");
        String id = jsonlSlice();
        assertTrue(root.call(
                        "append_row",
                        "{\"id\":\"" + id + "\",\"row\":{\"_meta\":{\"id\":\"r1\",\"created_at\":"
                                + "\"2026-11-01T10:00:00Z\",\"provenance\":{\"author\":\"dom\",\"method\":\"spike\"}},\"text\":\"x\"}}")
                .has("result"));
        JsonNode row = root.call("slices.rows", "{\"id\":\"" + id + "\"}")
                .get("result")
                .get("rows")
                .get(0);
        assertEquals("dom", row.at("/_meta/provenance/author").asText(), "a row's own provenance is its data: " + row);
    }

    @Test
    void settingsFile_refusesAnUnknownKeyOrAWrongType_andMissingMeansOff() {
        assertFalse(RootSettings.parse("").provenance());
        assertTrue(RootSettings.parse("provenance: true\n").provenance());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RootSettings.parse("provenence: true\n"))
                .getMessage()
                .contains("unknown setting 'provenence'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RootSettings.parse("provenance: yes please\n"))
                .getMessage()
                .contains("'provenance' must be a boolean"));
    }

    @Test
    @org.junit.jupiter.api.Timeout(60)
    void serve_withABadSettingsFile_refusesToStartNamingTheKey_whileReadsStillWork() throws Exception {
        root = new TestRoot(tmp);
        Files.writeString(root.dir.resolve(RootSettings.FILE), "provenence: true\n");
        Cli.Run serve = Cli.run(root.cliArgs("serve"));
        assertEquals(1, serve.code(), serve.toString());
        assertTrue(serve.err().contains("unknown setting 'provenence'"), serve.err());
        assertFalse(Files.exists(root.cfg.socket()), "no daemon started");
        Cli.Run lint = Cli.run(root.cliArgs("lint"));
        assertEquals(0, lint.code(), "reads and checks do not need the settings: " + lint);
    }

    @Test
    void cli_appendRowWithSource_andSearchBySource() throws Exception {
        serve("provenance: true\n");
        String id = jsonlSlice();
        Cli.Run a = Cli.run(root.cliArgs(
                "slices",
                "append-row",
                id,
                "{\"_meta\":{\"id\":\"r1\",\"created_at\":\"2026-11-01T10:00:00Z\"},\"text\":\"Prefers mornings\"}",
                "--source",
                "observation",
                "--confidence",
                "0.7",
                "--json"));
        assertEquals(0, a.code(), a.toString());
        assertEquals(
                "observation",
                JsonRpc.MAPPER.readTree(a.out()).at("/provenance/source").asText(),
                a.out());
        Cli.Run hit = Cli.run(root.cliArgs("search", "mornings", "--source", "observation"));
        assertEquals(0, hit.code(), hit.toString());
        assertTrue(hit.out().contains(".slices/" + id + ".slice"), hit.out());
        Cli.Run miss = Cli.run(root.cliArgs("search", "mornings", "--source", "inference"));
        assertEquals(1, miss.code(), miss.toString());
        Cli.Run bad = Cli.run(root.cliArgs(
                "slices",
                "append-row",
                id,
                "{\"_meta\":{\"id\":\"r2\",\"created_at\":\"2026-11-01T10:00:00Z\"},\"text\":\"x\"}",
                "--source",
                "gossip"));
        assertEquals(1, bad.code(), bad.toString());
        assertTrue(bad.err().contains("source"), bad.err());
    }
}
