package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import dev.memoryd.jcs.Jcs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** conversation.append and context through the running daemon. */
class ConversationContextTest {
    static final Path GOLDEN = Path.of("..", "grammar", "src", "test", "resources", "policy", "golden");

    @TempDir
    Path tmp;

    static Stream<Path> goldens() throws Exception {
        return Files.list(GOLDEN).filter(Files::isDirectory).sorted();
    }

    /** Appends every turn of a DAG, parents first, one append per turn in its own session. */
    static void appendAll(TestRoot root, JsonNode dag) throws Exception {
        List<JsonNode> pending = new ArrayList<>();
        dag.get("turns").forEach(pending::add);
        Set<String> done = new HashSet<>();
        while (!pending.isEmpty()) {
            boolean progress = false;
            for (java.util.Iterator<JsonNode> it = pending.iterator(); it.hasNext(); ) {
                JsonNode t = it.next();
                boolean ready = true;
                for (JsonNode p : t.path("parents")) {
                    ready &= done.contains(p.get("id").asText());
                }
                if (ready) {
                    ObjectNode req = JsonRpc.MAPPER.createObjectNode();
                    req.put("session_id", t.get("session_id").asText());
                    req.putArray("turns").add(t);
                    JsonNode r = root.call("conversation.append", JsonRpc.MAPPER.writeValueAsString(req));
                    assertTrue(r.has("result"), r.toString());
                    done.add(t.get("id").asText());
                    it.remove();
                    progress = true;
                }
            }
            assertTrue(progress, "input DAG has a cycle or a missing parent");
        }
    }

    @Test
    void appendsOfManyTurns_growALedgerSegmentPastItsDeflatedPieces_andGitAndTheLedgerReadEveryVersion()
            throws Exception {
        int calls = 12;
        int perCall = 300; // a ledger line of ~100 KB: the segment is deflated in pieces from its second version on
        try (TestRoot root = new TestRoot(tmp).serve()) {
            for (int c = 0; c < calls; c++) {
                ObjectNode req = JsonRpc.MAPPER.createObjectNode();
                req.put("session_id", "s-" + c);
                var turns = req.putArray("turns");
                for (int i = c * perCall; i < (c + 1) * perCall; i++) {
                    ObjectNode t = turns.addObject()
                            .put("id", String.format("%08x-0000-4000-8000-%012x", i >>> 16, (long) i))
                            .put("role", i % 2 == 0 ? "user" : "assistant")
                            .put("phase", "planning")
                            .put("salience", (i % 997) / 1000.0)
                            .put("trajectory_depth", i % 50)
                            .put("trajectory_sibling_order", 0)
                            .put("trajectory_homogeneity", 0.5)
                            .put("trajectory_temporal", 0.5)
                            .put("trajectory_complexity", 1.0)
                            .put("created_at", "2026-01-01T00:00:" + String.format("%02d", i % 60) + "Z");
                    if (i > 0) {
                        t.putArray("parents")
                                .addObject()
                                .put("id", String.format("%08x-0000-4000-8000-%012x", (i - 1) >>> 16, (long) i - 1))
                                .put("edge_type", "reply");
                    }
                }
                JsonNode r = root.call("conversation.append", JsonRpc.MAPPER.writeValueAsString(req));
                assertTrue(r.has("result"), r.toString());
            }
            long largest;
            try (Stream<Path> files = Files.walk(root.dir.resolve("ledger"))) {
                largest = files.filter(Files::isRegularFile)
                        .mapToLong(p -> p.toFile().length())
                        .max()
                        .orElse(0);
            }
            assertTrue(largest > 600_000, "a segment of several pieces: " + largest + " bytes");
            assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
        }
        Process fsck = new ProcessBuilder(
                        "git", "-C", tmp.resolve("memory").toString(), "fsck", "--full", "--strict", "--no-dangling")
                .redirectErrorStream(true)
                .start();
        String out = new String(fsck.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, fsck.waitFor(), "git reads every object of every version: " + out);
        assertEquals("", out.strip());
    }

    @ParameterizedTest
    @MethodSource("goldens")
    void context_throughDaemon_matchesGoldenSliceExport_byteForByte(Path dir) throws Exception {
        JsonNode in = JsonRpc.MAPPER.readTree(dir.resolve("input.json").toFile());
        JsonNode expected = JsonRpc.MAPPER.readTree(dir.resolve("expected.json").toFile());
        try (TestRoot root = new TestRoot(tmp).serve()) {
            appendAll(root, in.get("dag"));
            ObjectNode req = JsonRpc.MAPPER.createObjectNode();
            req.put("anchor_turn_id", in.get("anchor_turn_id").asText());
            req.set("policy", in.get("config"));
            String params = JsonRpc.MAPPER.writeValueAsString(req);
            JsonNode got = root.call("context", params).get("result");
            assertEquals(Jcs.canonicalize(expected), Jcs.canonicalize(got));
            // survives a restart: the DAG is folded back from the ledger
            root.daemon.close();
            root.serve();
            assertEquals(
                    Jcs.canonicalize(expected),
                    Jcs.canonicalize(root.call("context", params).get("result")));
            assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
            JsonNode replay = root.call("replay", "{\"verify\":true}").get("result");
            assertTrue(replay.get("ok").asBoolean(), "conversation files replay byte for byte: " + replay);
        }
    }

    private static String turn(String id, String parent) {
        return "{\"id\":\"" + id + "\",\"role\":\"user\",\"phase\":\"planning\",\"salience\":0.5,"
                + "\"trajectory_depth\":0,\"trajectory_sibling_order\":0,\"trajectory_homogeneity\":0.5,"
                + "\"trajectory_temporal\":0.5,\"trajectory_complexity\":1.0,\"created_at\":\"2026-01-01T00:00:00Z\""
                + (parent == null ? "" : ",\"parents\":[{\"id\":\"" + parent + "\",\"edge_type\":\"reply\"}]") + "}";
    }

    /** The exact reply line of {@code context}: members, their order and the numbers' forms, as clients read them. */
    static final String CONTEXT_REPLY =
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"anchor_turn_id\":\"00000000-0000-4000-8000-000000000002\","
                    + "\"turns\":[{\"id\":\"00000000-0000-4000-8000-000000000001\",\"session_id\":\"s1\",\"role\":\"user\","
                    + "\"phase\":\"planning\",\"salience\":0.5,\"trajectory_depth\":0,\"trajectory_sibling_order\":0,"
                    + "\"trajectory_homogeneity\":0.5,\"trajectory_temporal\":0.5,\"trajectory_complexity\":1.0,"
                    + "\"created_at\":\"2026-01-01T00:00:00Z\"},"
                    + "{\"id\":\"00000000-0000-4000-8000-000000000002\",\"session_id\":\"s1\",\"role\":\"user\","
                    + "\"phase\":\"planning\",\"salience\":0.5,\"trajectory_depth\":0,\"trajectory_sibling_order\":0,"
                    + "\"trajectory_homogeneity\":0.5,\"trajectory_temporal\":0.5,\"trajectory_complexity\":1.0,"
                    + "\"created_at\":1767225600}],"
                    + "\"edges\":[{\"parent\":\"00000000-0000-4000-8000-000000000001\","
                    + "\"child\":\"00000000-0000-4000-8000-000000000002\",\"edge_type\":\"reply\"}],"
                    + "\"policy_id\":\"slice_policy_v1\",\"policy_params_hash\":\"b0351b23b393541b\","
                    + "\"schema_version\":\"1.0.0\",\"slice_id\":\"600768c57298939b\"}}";

    @Test
    void context_replyLine_isPinnedByteForByte() throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            root.call("conversation.append", "{\"session_id\":\"s1\",\"turns\":[" + turn(T1, null) + "]}");
            root.call(
                    "conversation.append",
                    "{\"session_id\":\"s1\",\"turns\":["
                            + turn(T2, T1)
                                    .replace("\"created_at\":\"2026-01-01T00:00:00Z\"", "\"created_at\":1767225600")
                            + "]}");
            try (dev.memoryd.daemon.client.SocketClient c = root.client()) {
                assertEquals(
                        CONTEXT_REPLY,
                        c.raw("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"context\",\"params\":{\"anchor_turn_id\":\""
                                + T2 + "\"}}"));
            }
        }
    }

    static final String T1 = "00000000-0000-4000-8000-000000000001";
    static final String T2 = "00000000-0000-4000-8000-000000000002";
    static final String T3 = "00000000-0000-4000-8000-000000000003";

    @Test
    void badAppendsAndQueries_getPreciseErrors_andRecordNothing() throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            JsonNode ok = root.call(
                    "conversation.append",
                    "{\"session_id\":\"s1\",\"turns\":[" + turn(T1, null) + "," + turn(T2, T1) + "]}");
            assertTrue(ok.has("result"), ok.toString());
            assertTrue(ok.get("result").get("path").asText().matches("\\.slices/[0-9A-Z]{26}\\.slice"));
            String slice = root.file(ok.get("result").get("path").asText());
            assertTrue(slice.contains("type: conversation"), slice);
            assertEquals(2, slice.lines().filter(l -> l.startsWith("{")).count());

            assertEquals(
                    "conflict",
                    reason(root.call(
                            "conversation.append", "{\"session_id\":\"s1\",\"turns\":[" + turn(T1, null) + "]}")));
            assertEquals(
                    "not_found",
                    reason(root.call(
                            "conversation.append",
                            "{\"session_id\":\"s1\",\"turns\":[" + turn(T3, "00000000-0000-4000-8000-000000000099")
                                    + "]}")));
            assertEquals(
                    "invalid_request",
                    reason(root.call(
                            "conversation.append",
                            "{\"session_id\":\"s1\",\"turns\":[{\"id\":\"" + T3 + "\",\"role\":\"wizard\"}]}")));
            assertEquals(
                    "invalid_request",
                    reason(root.call(
                            "conversation.append",
                            "{\"session_id\":\"bad session!\",\"turns\":[" + turn(T3, null) + "]}")));
            assertEquals("not_found", reason(root.call("context", "{\"anchor_turn_id\":\"" + T3 + "\"}")));
            JsonNode badPolicy =
                    root.call("context", "{\"anchor_turn_id\":\"" + T1 + "\",\"policy\":{\"max_nodes\":0}}");
            assertEquals("invalid_request", reason(badPolicy));
            assertEquals(
                    "max_nodes", badPolicy.get("error").get("data").get("field").asText(), badPolicy.toString());
            assertEquals(
                    TestRoot.IMPORT_LINES + 1,
                    root.call("ledger.verify", null).get("result").get("lines").asInt(),
                    "only the first append is recorded");

            JsonNode ctx =
                    root.call("context", "{\"anchor_turn_id\":\"" + T2 + "\"}").get("result");
            assertEquals("b0351b23b393541b", ctx.get("policy_params_hash").asText());
            assertEquals("1.0.0", ctx.get("schema_version").asText());
            assertEquals(2, ctx.get("turns").size());
            String again = Jcs.canonicalize(
                    root.call("context", "{\"anchor_turn_id\":\"" + T2 + "\"}").get("result"));
            assertEquals(Jcs.canonicalize(ctx), again);
        }
    }

    @Test
    void append_keepsItsWireKeysInOrder_andEachRefusalSaysWhatIsWrong_sessionFirst() throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            JsonNode ok = root.call("conversation.append", "{\"session_id\":\"s1\",\"turns\":[" + turn(T1, null) + "]}")
                    .get("result");
            assertEquals(List.of("commit", "event_id", "token", "path", "turns"), TestRoot.keys(ok));
            assertEquals(1, ok.get("turns").asInt());
            assertEquals(
                    "session_id must match [A-Za-z0-9._:-]{1,128}",
                    refusal(root, "{\"session_id\":\"bad session!\",\"turns\":3}"),
                    "the session is checked before the turns");
            assertEquals("turns must be a non-empty array", refusal(root, "{\"session_id\":\"s1\",\"turns\":3}"));
            assertEquals("turns must be a non-empty array", refusal(root, "{\"session_id\":\"s1\",\"turns\":[]}"));
            assertEquals(
                    "turns[0].session_id is 'other', not the session_id of the request",
                    refusal(
                            root,
                            "{\"session_id\":\"s1\",\"turns\":["
                                    + turn(T2, null).replace("{\"id\"", "{\"session_id\":\"other\",\"id\"") + "]}"));
            String wizard = refusal(
                    root,
                    "{\"session_id\":\"s1\",\"turns\":[" + turn(T2, T1) + ",{\"id\":\"" + T3
                            + "\",\"role\":\"wizard\"}]}");
            assertTrue(wizard.startsWith("turns[1]"), wizard);
            assertEquals(
                    TestRoot.IMPORT_LINES + 1,
                    root.call("ledger.verify", null).get("result").get("lines").asInt(),
                    "no refused append is recorded");
        }
    }

    /** The message of {@code conversation.append}'s refusal of {@code params}, whose data says only the reason. */
    private static String refusal(TestRoot root, String params) throws Exception {
        JsonNode r = root.call("conversation.append", params);
        assertEquals("invalid_request", reason(r), r.toString());
        assertEquals(List.of("reason"), TestRoot.keys(r.get("error").get("data")), r.toString());
        return r.get("error").get("message").asText();
    }

    private static String turnAt(String id, String parent, String createdAtJson) {
        return turn(id, parent).replace("\"created_at\":\"2026-01-01T00:00:00Z\"", "\"created_at\":" + createdAtJson);
    }

    @Test
    void createdAt_asEpochSecondsOfTheSpecExample_isAccepted_exportedAsGiven_andLeavesSliceIdAlone() throws Exception {
        String mixed = "{\"session_id\":\"s1\",\"turns\":[" + turnAt(T1, null, "1704067200") + ","
                + turnAt(T2, T1, "\"2024-01-01T00:00:01Z\"") + "]}";
        String params = "{\"anchor_turn_id\":\"" + T2 + "\"}";
        String sliceIdOfStrings;
        try (TestRoot root = new TestRoot(tmp.resolve("strings")).serve()) {
            assertTrue(root.call(
                            "conversation.append",
                            "{\"session_id\":\"s1\",\"turns\":["
                                    + turnAt(T1, null, "\"2024-01-01T00:00:00Z\"") + ","
                                    + turnAt(T2, T1, "\"2024-01-01T00:00:01Z\"")
                                    + "]}")
                    .has("result"));
            sliceIdOfStrings =
                    root.call("context", params).get("result").get("slice_id").asText();
        }
        try (TestRoot root = new TestRoot(tmp.resolve("epoch")).serve()) {
            JsonNode ok = root.call("conversation.append", mixed);
            assertTrue(ok.has("result"), ok.toString());
            for (int run = 0; run < 2; run++) {
                JsonNode ctx = root.call("context", params).get("result");
                JsonNode first = ctx.get("turns").get(0);
                assertEquals(T1, first.get("id").asText());
                assertTrue(first.get("created_at").isIntegralNumber(), "given as epoch seconds, exported so: " + first);
                assertEquals(1704067200L, first.get("created_at").asLong());
                assertEquals(
                        "2024-01-01T00:00:01Z",
                        ctx.get("turns").get(1).get("created_at").textValue());
                assertEquals(
                        sliceIdOfStrings, ctx.get("slice_id").asText(), "created_at is no part of the fingerprint");
                root.daemon.close(); // the form survives a restart: the DAG is folded back from the file
                root.serve();
            }
            assertTrue(root.call("replay", "{\"verify\":true}")
                    .get("result")
                    .get("ok")
                    .asBoolean());
            for (String bad : new String[] {"-1", "1.5", "\"1704067200\"", "true"}) {
                JsonNode r = root.call(
                        "conversation.append", "{\"session_id\":\"s1\",\"turns\":[" + turnAt(T3, null, bad) + "]}");
                assertEquals("invalid_request", reason(r), bad);
                assertTrue(r.get("error").get("message").asText().contains("turns[0].created_at"), r.toString());
            }
        }
    }

    @Test
    void searchFindsAConversationByTheStringsOfItsTurns() throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            JsonNode ok = root.call(
                    "conversation.append",
                    "{\"session_id\":\"s1\",\"turns\":[" + turn(T1, null) + "," + turn(T2, T1) + "]}");
            String path = ok.get("result").get("path").asText();
            for (String q : new String[] {"000000000002", "planning", "reply"}) {
                JsonNode hits = root.call("search", "{\"q\":\"" + q + "\"}")
                        .get("result")
                        .get("hits");
                List<String> paths = new ArrayList<>();
                hits.forEach(h -> paths.add(h.get("path").asText()));
                assertTrue(paths.contains(path), q + " finds the conversation: " + hits);
            }
            JsonNode none = root.call("search", "{\"q\":\"000000000003\"}")
                    .get("result")
                    .get("hits");
            for (JsonNode h : none) {
                assertTrue(!h.get("path").asText().equals(path), "a turn id not stored is not found: " + none);
            }
        }
    }

    private static String reason(JsonNode r) {
        return r.path("error").path("data").path("reason").asText("(no error: " + r + ")");
    }
}
