package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import dev.memoryd.daemon.rpc.catalogue.MethodCatalogue;
import dev.memoryd.daemon.rpc.catalogue.MethodSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memoryd mcp} from outside: a real daemon child process, real MCP child processes spoken
 * to over stdin/stdout as an MCP client does.
 */
class McpServerTest extends DaemonChildTest {
    static final String OVERVIEW = "users/sam/overview.md";

    @Test
    void withNoDaemon_initializeWorks_andAToolCallSaysHowToStartOne(@TempDir Path elsewhere) throws Exception {
        Path noDaemon = elsewhere.resolve("memory");
        Files.createDirectories(noDaemon);
        try (McpProcess mcp = McpProcess.start(noDaemon, elsewhere.resolve("mcp.log"))) {
            JsonNode init = mcp.initialize("test-client");
            assertEquals("2025-06-18", init.at("/result/protocolVersion").asText(), init.toString());
            assertEquals("memoryd", init.at("/result/serverInfo/name").asText());

            JsonNode r = mcp.callTool("read", "{\"path\":\"" + OVERVIEW + "\"}");
            assertTrue(r.path("isError").asBoolean(), r.toString());
            String text = r.at("/content/0/text").asText();
            assertTrue(text.contains("bin/memoryd serve --root " + noDaemon.toAbsolutePath()), text);
            assertFalse(r.has("structuredContent"), "a tool error carries no structured content: " + r);
            assertEquals("unavailable", errorData(r).path("reason").asText());
            assertFalse(errorData(r).path("recorded").asBoolean(true));

            JsonNode guide = mcp.callTool("guide", "{}");
            assertFalse(guide.path("isError").asBoolean(), guide.toString());
            assertTrue(guide.at("/content/0/text").asText().contains("Evidence (curated)"));
            assertOnlyJsonRpc(mcp);
            assertEquals(0, mcp.closeInput(), "memoryd mcp exits 0 when the client closes stdin");
        }
        assertFalse(Files.exists(noDaemon.resolve(".memoryd")), "the MCP server created daemon state");
    }

    @Test
    void aClientThatClosesStdinAfterItsLastRequest_stillGetsTheReply(@TempDir Path elsewhere) throws Exception {
        try (McpProcess mcp = McpProcess.start(root.dir, elsewhere.resolve("mcp.log"))) {
            mcp.initialize("test-client");
            java.util.concurrent.CompletableFuture<JsonNode> reply = mcp.send(
                    "tools/call", TestRoot.json("{\"name\":\"read\",\"arguments\":{\"path\":\"" + OVERVIEW + "\"}}"));
            assertEquals(0, mcp.closeInput());
            JsonNode r = reply.get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(r.at("/result/structuredContent/content").asText().contains("## Identity"), r.toString());
        }
    }

    @Test
    void toolsList_isTheCatalogue_eachWithSchemasAndAnnotations() throws Exception {
        try (McpProcess mcp = McpProcess.start(root.dir, tmp.resolve("mcp-list.log"))) {
            mcp.initialize("test-client");
            JsonNode tools = mcp.request("tools/list", null).at("/result/tools");
            Set<String> names = new TreeSet<>();
            for (JsonNode t : tools) {
                String name = t.path("name").asText();
                names.add(name);
                assertEquals("object", t.at("/inputSchema/type").asText(), name);
                assertTrue(t.path("description").asText().length() > 40, name);
                for (String hint : List.of("readOnlyHint", "destructiveHint", "idempotentHint")) {
                    assertTrue(t.path("annotations").path(hint).isBoolean(), name + " lacks " + hint);
                }
            }
            Set<String> expected = new TreeSet<>(Set.of("guide"));
            for (MethodSpec m : MethodCatalogue.get().methods()) {
                expected.add(m.toolName());
                JsonNode t = find(tools, m.toolName());
                assertEquals(m.result() != null, t.has("outputSchema"), m.name());
                assertEquals(m.readOnly(), t.at("/annotations/readOnlyHint").asBoolean(), m.name());
                assertEquals(JsonRpc.MAPPER.valueToTree(m.params()), t.get("inputSchema"), m.name());
            }
            assertEquals(expected, names);
            for (String required : List.of(
                    "read",
                    "write",
                    "history",
                    "resolve",
                    "search",
                    "context",
                    "conversation_append",
                    "scope",
                    "traverse",
                    "declare",
                    "explore",
                    "slices_list",
                    "append_row",
                    "lint",
                    "drift_list",
                    "drift_show",
                    "proposals_list",
                    "slip_send",
                    "slip_recv",
                    "guide")) {
                assertTrue(names.contains(required), required);
            }
            assertTrue(find(tools, "write").at("/annotations/destructiveHint").asBoolean());
            assertTrue(find(tools, "read").at("/annotations/idempotentHint").asBoolean());
            assertOnlyJsonRpc(mcp);
        }
    }

    @Test
    void writeThenRead_roundTripsASection_asTheClientsActor() throws Exception {
        try (McpProcess mcp = McpProcess.start(root.dir, tmp.resolve("mcp-rw.log"))) {
            mcp.initialize("round-trip-agent");
            JsonNode before = mcp.callTool("read", "{\"path\":\"" + OVERVIEW + "\",\"section\":\"Active Themes\"}");
            assertFalse(before.path("isError").asBoolean(), before.toString());
            String hash = before.at("/structuredContent/hash").asText();
            assertFalse(hash.isEmpty(), before.toString());

            JsonNode w = mcp.callTool(
                    "write",
                    "{\"rationale\":\"the user named a new theme\",\"ops\":[{\"op\":\"append_item\","
                            + "\"path\":\"" + OVERVIEW
                            + "\",\"section\":\"Active Themes\",\"item\":\"Learning to pause\","
                            + "\"before_hash\":\"" + hash + "\"}]}");
            assertFalse(w.path("isError").asBoolean(), w.toString());
            assertTrue(w.at("/structuredContent/changed").asBoolean(), w.toString());
            assertTrue(w.at("/structuredContent/events/0/token").asText().startsWith("ev:"), w.toString());
            assertEquals(
                    w.get("structuredContent"),
                    JsonRpc.MAPPER.readTree(w.at("/content/0/text").asText()));

            JsonNode after = mcp.callTool("read", "{\"path\":\"" + OVERVIEW + "\",\"section\":\"active-themes\"}");
            assertTrue(
                    after.at("/structuredContent/content").asText().contains("- Learning to pause"), after.toString());
            assertNotEquals(hash, after.at("/structuredContent/hash").asText());
            assertTrue(root.file(OVERVIEW).contains("- Learning to pause"));

            JsonNode h = mcp.callTool(
                    "history", "{\"path\":\"" + OVERVIEW + "\",\"section\":\"active-themes\",\"limit\":1}");
            assertEquals(
                    "round-trip-agent",
                    h.at("/structuredContent/events/0/actor").asText(),
                    h.toString());
            assertOnlyJsonRpc(mcp);
        }
    }

    @Test
    void aStaleHash_isAToolErrorWithTheDaemonsReason_andWritesNothing() throws Exception {
        try (McpProcess mcp = McpProcess.start(root.dir, tmp.resolve("mcp-conflict.log"))) {
            mcp.initialize("test-client");
            String path = "users/sam/parts/inner-critic/profile.md";
            String stale = mcp.callTool("read", "{\"path\":\"" + path + "\",\"section\":\"needs\"}")
                    .at("/structuredContent/hash")
                    .asText();
            JsonNode ok = mcp.callTool(
                    "write",
                    "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + path
                            + "\",\"section\":\"needs\",\"item\":\"Rest\",\"before_hash\":\"" + stale + "\"}]}");
            assertFalse(ok.path("isError").asBoolean(), ok.toString());
            String fileBefore = root.file(path);
            long linesBefore =
                    daemon.result("ledger.verify", null).path("lines").asLong();

            JsonNode r = mcp.callTool(
                    "write",
                    "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + path
                            + "\",\"section\":\"needs\",\"item\":\"Quiet\",\"before_hash\":\"" + stale + "\"}]}");
            assertTrue(r.path("isError").asBoolean(), r.toString());
            assertFalse(r.has("structuredContent"), "a tool error carries no structured content: " + r);
            assertEquals("conflict", errorData(r).path("reason").asText(), r.toString());
            assertTrue(errorData(r).path("current_hash").isTextual(), r.toString());
            String text = r.at("/content/0/text").asText();
            assertTrue(text.startsWith("conflict: "), text);
            assertTrue(text.contains("read it again"), text);

            JsonNode bad = mcp.callTool("scope", "{\"scopes\":[]}");
            assertTrue(bad.path("isError").asBoolean(), bad.toString());
            assertEquals("invalid_request", errorData(bad).path("reason").asText());

            assertEquals(fileBefore, root.file(path));
            assertEquals(
                    linesBefore,
                    daemon.result("ledger.verify", null).path("lines").asLong());
            assertOnlyJsonRpc(mcp);
        }
    }

    /**
     * A client that escapes a lone surrogate (as JSON.stringify does) gets the daemon's precise
     * refusal naming the field: it used to be written as "?" and acknowledged.
     */
    @Test
    void aLoneSurrogateInAToolCall_isInvalidRequestNamingTheField_andNothingIsWritten() throws Exception {
        try (McpProcess mcp = McpProcess.start(root.dir, tmp.resolve("mcp-surrogate.log"))) {
            mcp.initialize("test-client");
            long linesBefore =
                    daemon.result("ledger.verify", null).path("lines").asLong();

            JsonNode r = mcp.callTool(
                    "write",
                    "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + OVERVIEW
                            + "\",\"section\":\"Active Themes\",\"item\":\"x \\ud800 y\"}]}");
            assertTrue(r.path("isError").asBoolean(), r.toString());
            assertEquals("invalid_request", errorData(r).path("reason").asText(), r.toString());
            assertEquals("params.ops[0].item", errorData(r).path("field").asText(), r.toString());

            JsonNode pair = mcp.callTool(
                    "write",
                    "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + OVERVIEW
                            + "\",\"section\":\"Active Themes\",\"item\":\"Calm \\ud83c\\udf3f\"}]}");
            assertFalse(pair.path("isError").asBoolean(), "a surrogate pair is a character: " + pair);
            assertTrue(root.file(OVERVIEW).contains("- Calm \uD83C\uDF3F\n"), root.file(OVERVIEW));
            assertFalse(root.file(OVERVIEW).contains("- x "), "the refused item was written: " + root.file(OVERVIEW));
            assertEquals(
                    linesBefore + 1,
                    daemon.result("ledger.verify", null).path("lines").asLong());
            assertOnlyJsonRpc(mcp);
        }
    }

    @Test
    void tenMcpProcessesWritingAtOnce_loseNoAcknowledgedWrite_andTheLedgerVerifies() throws Exception {
        int processes = 10;
        int each = 6;
        String notes = "users/sam/notes.md";
        long linesBefore = daemon.result("ledger.verify", null).path("lines").asLong();
        List<McpProcess> mcps = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(processes);
        try {
            List<Future<McpProcess>> starting = new ArrayList<>();
            for (int p = 0; p < processes; p++) {
                int k = p;
                starting.add(pool.submit(() -> {
                    McpProcess m = McpProcess.start(root.dir, tmp.resolve("mcp-writer-" + k + ".log"));
                    m.initialize("writer-" + k);
                    return m;
                }));
            }
            for (Future<McpProcess> f : starting) {
                mcps.add(f.get());
            }
            java.util.concurrent.CyclicBarrier go = new java.util.concurrent.CyclicBarrier(processes);
            List<Future<List<String>>> writers = new ArrayList<>();
            for (int p = 0; p < processes; p++) {
                McpProcess m = mcps.get(p);
                int k = p;
                writers.add(pool.submit(() -> {
                    go.await();
                    List<String> acknowledged = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        String item = "writer " + k + " item " + i;
                        JsonNode r = m.callTool(
                                "write",
                                "{\"rationale\":\"ten at once\",\"ops\":[{\"op\":\"append_item\"," + "\"path\":\""
                                        + notes + "\",\"section\":\"Inbox\",\"item\":\"" + item + "\"}]}");
                        assertFalse(r.path("isError").asBoolean(), r.toString());
                        assertTrue(r.at("/structuredContent/changed").asBoolean(), r.toString());
                        acknowledged.add(item);
                    }
                    return acknowledged;
                }));
            }
            List<String> acknowledged = new ArrayList<>();
            for (Future<List<String>> f : writers) {
                acknowledged.addAll(f.get());
            }
            assertEquals(processes * each, acknowledged.size());

            String file = root.file(notes);
            String inbox = daemon.result("read", "{\"path\":\"" + notes + "\",\"section\":\"inbox\"}")
                    .path("content")
                    .asText();
            for (String item : acknowledged) {
                assertTrue(file.contains("- " + item + "\n"), item + " lost from the file");
                assertEquals(
                        1, inbox.lines().filter(("- " + item)::equals).count(), item + " not exactly once:\n" + inbox);
            }
            JsonNode verify = daemon.result("ledger.verify", null);
            assertTrue(verify.path("ok").asBoolean(), verify.toString());
            assertEquals(
                    linesBefore + processes * each, verify.path("lines").asLong(), "one event per acknowledged write");
            java.util.Map<String, Integer> byActor = new java.util.TreeMap<>();
            for (JsonNode e : daemon.result(
                            "history",
                            "{\"path\":\"" + notes + "\",\"section\":\"inbox\",\"limit\":" + processes * each + "}")
                    .path("events")) {
                byActor.merge(e.path("actor").asText(), 1, Integer::sum);
            }
            for (int p = 0; p < processes; p++) {
                assertEquals(each, byActor.getOrDefault("writer-" + p, 0), byActor.toString());
            }
            for (McpProcess m : mcps) {
                assertOnlyJsonRpc(m);
            }
        } finally {
            pool.shutdownNow();
            for (McpProcess m : mcps) {
                m.close();
            }
        }
    }

    /** A tool error's second text block: the daemon's error.data as JSON. */
    private static JsonNode errorData(JsonNode toolResult) throws Exception {
        assertEquals(2, toolResult.path("content").size(), toolResult.toString());
        return JsonRpc.MAPPER.readTree(toolResult.at("/content/1/text").asText());
    }

    private static JsonNode find(JsonNode tools, String name) {
        for (JsonNode t : tools) {
            if (name.equals(t.path("name").asText())) {
                return t;
            }
        }
        throw new AssertionError("no tool " + name);
    }

    /** stdout carries only JSON-RPC 2.0 messages, one per line. */
    private static void assertOnlyJsonRpc(McpProcess mcp) {
        List<String> lines = mcp.stdout();
        assertFalse(lines.isEmpty());
        for (String line : lines) {
            JsonNode n;
            try {
                n = JsonRpc.MAPPER.readTree(line);
            } catch (Exception e) {
                throw new AssertionError("stdout line is not JSON: " + line);
            }
            assertEquals("2.0", n.path("jsonrpc").asText(), "not a JSON-RPC message on stdout: " + line);
        }
    }
}
