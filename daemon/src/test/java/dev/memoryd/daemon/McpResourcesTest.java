package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.daemon.cli.Main;
import dev.memoryd.daemon.layout.RootLayout;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Memory files as MCP resources, seen by the MCP Java SDK's own client talking to a real
 * {@code memoryd mcp} child process in front of a real daemon child process: the list, reads,
 * and the notifications after agents' writes and humans' captured edits.
 */
class McpResourcesTest extends DaemonChildTest {
    static final String OVERVIEW = "users/sam/overview.md";
    static final String NOTES = "users/sam/notes.md";

    /** A client with its notifications queued: resources re-listed after list_changed, contents re-read after updated. */
    static final class Client implements AutoCloseable {
        final BlockingQueue<List<McpSchema.Resource>> relisted = new LinkedBlockingQueue<>();
        final BlockingQueue<McpSchema.ResourceContents> updated = new LinkedBlockingQueue<>();
        final McpSyncClient mcp;

        Client(String name) {
            this(name, root.dir);
        }

        /** A client of a shim for the root at {@code rootDir}, served or not. */
        Client(String name, Path rootDir) {
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            ServerParameters server = ServerParameters.builder(java)
                    .args(
                            "-Xshare:auto",
                            "-XX:TieredStopAtLevel=1",
                            "-cp",
                            System.getProperty("java.class.path"),
                            Main.class.getName(),
                            "mcp",
                            "--root",
                            rootDir.toString())
                    .build();
            StdioClientTransport transport =
                    new StdioClientTransport(server, new JacksonMcpJsonMapper(new ObjectMapper()));
            transport.setStdErrorHandler(line -> {}); // the server's log; the assertions say what went wrong
            mcp = McpClient.sync(transport)
                    .clientInfo(new McpSchema.Implementation(name, "1.0"))
                    .requestTimeout(Duration.ofSeconds(60))
                    .initializationTimeout(Duration.ofSeconds(60))
                    .resourcesChangeConsumer(relisted::add)
                    .resourcesUpdateConsumer(updated::addAll)
                    .build();
            mcp.initialize();
        }

        McpSchema.CallToolResult call(String tool, String argumentsJson) throws Exception {
            @SuppressWarnings("unchecked")
            Map<String, Object> args = new ObjectMapper().readValue(argumentsJson, Map.class);
            return mcp.callTool(new McpSchema.CallToolRequest(tool, args));
        }

        String read(String path) {
            McpSchema.ReadResourceResult r = mcp.readResource(new McpSchema.ReadResourceRequest("memoryd://" + path));
            assertEquals(1, r.contents().size(), r.toString());
            McpSchema.TextResourceContents t =
                    (McpSchema.TextResourceContents) r.contents().get(0);
            assertEquals("text/markdown", t.mimeType());
            assertEquals("memoryd://" + path, t.uri());
            return t.text();
        }

        @Override
        public void close() {
            mcp.closeGracefully();
        }
    }

    @Test
    void everyMemoryFile_isAListedResource_readThroughTheDaemon() throws Exception {
        try (Client c = new Client("resource-reader")) {
            McpSchema.ServerCapabilities caps = c.mcp.getServerCapabilities();
            assertNotNull(caps.resources(), "no resources capability");
            assertTrue(caps.resources().subscribe());
            assertTrue(caps.resources().listChanged());

            Set<String> listed = new TreeSet<>();
            for (McpSchema.Resource r : c.mcp.listResources().resources()) {
                listed.add(r.uri());
                assertEquals("text/markdown", r.mimeType(), r.uri());
                assertEquals(r.uri(), "memoryd://" + r.name());
            }
            Set<String> onDisk = new TreeSet<>();
            for (String p : RootLayout.memoryFilesOnDisk(root.dir)) {
                onDisk.add("memoryd://" + p);
            }
            assertTrue(onDisk.size() >= 5, onDisk.toString());
            assertEquals(onDisk, listed);

            assertEquals(root.file(OVERVIEW), c.read(OVERVIEW));
            List<String> templates = c.mcp.listResourceTemplates().resourceTemplates().stream()
                    .map(McpSchema.ResourceTemplate::uriTemplate)
                    .toList();
            assertEquals(List.of("memoryd://{+path}"), templates);

            for (String missing :
                    List.of("users/sam/nobody.md", "ledger/main.jsonl", ".memoryd/memoryd.sock", "../etc/passwd")) {
                McpError e = assertThrows(
                        McpError.class,
                        () -> c.mcp.readResource(new McpSchema.ReadResourceRequest("memoryd://" + missing)),
                        missing);
                assertEquals(
                        McpSchema.ErrorCodes.RESOURCE_NOT_FOUND,
                        e.getJsonRpcError().code(),
                        missing + ": " + e);
            }
        }
    }

    @Test
    void aSubscribedFile_isUpdatedAfterAnAgentsWrite_andAHumansCapturedEdit_andNoOtherIs() throws Exception {
        try (Client c = new Client("subscriber")) {
            c.mcp.subscribeResource(new McpSchema.SubscribeRequest("memoryd://" + OVERVIEW));

            McpSchema.CallToolResult other = c.call(
                    "write",
                    "{\"rationale\":\"note\",\"ops\":[{\"op\":\"append_item\"," + "\"path\":\"" + NOTES
                            + "\",\"section\":\"Inbox\",\"item\":\"not subscribed\"}]}");
            assertFalse(other.isError(), other.toString());
            McpSchema.CallToolResult w = c.call(
                    "write",
                    "{\"rationale\":\"the user named a theme\",\"ops\":[{\"op\":" + "\"append_item\",\"path\":\""
                            + OVERVIEW + "\",\"section\":\"Active Themes\",\"item\":\"Saying no kindly\"}]}");
            assertFalse(w.isError(), w.toString());

            McpSchema.TextResourceContents first = nextUpdate(c);
            assertEquals("memoryd://" + OVERVIEW, first.uri());
            assertTrue(first.text().contains("- Saying no kindly"), first.text());

            String text = Files.readString(root.dir.resolve(OVERVIEW));
            Files.writeString(root.dir.resolve(OVERVIEW), text.replace("a harsh inner voice", "a sharp inner voice"));
            daemon.result("capture", "{\"paths\":[\"" + OVERVIEW + "\"]}"); // unless the file watcher was first
            McpSchema.TextResourceContents second = nextUpdate(c);
            assertEquals("memoryd://" + OVERVIEW, second.uri());
            assertTrue(second.text().contains("a sharp inner voice"), second.text());

            Thread.sleep(1500); // three more watch rounds: nothing else may arrive
            assertTrue(c.updated.isEmpty(), "updates nobody subscribed to: " + c.updated);
        }
    }

    @Test
    void aCreatedFile_sendsListChanged_andIsListedAndReadable() throws Exception {
        try (Client c = new Client("creator")) {
            String path = "users/sam/parts/night-owl/profile.md";
            assertFalse(uris(c.mcp.listResources().resources()).contains("memoryd://" + path));
            McpSchema.CallToolResult w = c.call(
                    "write",
                    "{\"rationale\":\"a new part showed up\",\"ops\":[{\"op\":"
                            + "\"create_entity\",\"user_id\":\"sam\",\"entity_type\":\"part\",\"entity_id\":\"night-owl\","
                            + "\"title\":\"The Night Owl\"}]}");
            assertFalse(w.isError(), w.toString());
            JsonNode created = new ObjectMapper().valueToTree(w.structuredContent());
            assertEquals(path, created.at("/events/0/path").asText(), created.toString());

            List<McpSchema.Resource> relisted = c.relisted.poll(15, TimeUnit.SECONDS);
            assertNotNull(relisted, "no notifications/resources/list_changed within 15 s of the create");
            assertTrue(
                    uris(relisted).contains("memoryd://" + path), uris(relisted).toString());
            assertTrue(uris(c.mcp.listResources().resources()).contains("memoryd://" + path));
            assertTrue(c.read(path).contains("The Night Owl"));
        }
    }

    @Test
    void filesAndChanges_overTheSocket_nameWhatWasAddedModifiedOrRemoved() throws Exception {
        JsonNode files = daemon.result("files", null);
        String since = files.path("commit").asText();
        assertEquals(daemon.result("ping", null).path("head").asText(), since);
        List<String> listed = new ArrayList<>();
        files.path("files").forEach(f -> listed.add(f.asText()));
        assertEquals(RootLayout.memoryFilesOnDisk(root.dir), listed);

        assertEquals(
                0,
                daemon.result("changes", "{\"since\":\"" + since + "\"}")
                        .path("files")
                        .size());
        daemon.result(
                "write",
                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + NOTES
                        + "\",\"section\":\"Inbox\",\"item\":\"changed\"}]}");
        daemon.result("write", "{\"rationale\":\"r\",\"ops\":[" + Decl.createPart("early-bird") + "]}");
        JsonNode ch = daemon.result("changes", "{\"since\":\"" + since + "\"}");
        assertEquals(
                daemon.result("ping", null).path("head").asText(),
                ch.path("head").asText());
        assertEquals(since, ch.path("since").asText());
        Map<String, String> kinds = new java.util.TreeMap<>();
        ch.path("files")
                .forEach(
                        f -> kinds.put(f.path("path").asText(), f.path("change").asText()));
        assertEquals(
                Map.of(
                        NOTES,
                        "modified",
                        "users/sam/parts/early-bird/profile.md",
                        "added",
                        "users/sam/parts/early-bird/notes.md",
                        "added"),
                kinds);

        // memoryd never deletes a memory file, but a tree is compared, not a history: a commit that
        // has a file the head lacks (another branch's) shows it as removed.
        daemon.result("branch.create", "{\"name\":\"side\"}");
        daemon.result(
                "write", "{\"rationale\":\"r\",\"branch\":\"side\",\"ops\":[" + Decl.createPart("side-kick") + "]}");
        String side = null;
        for (JsonNode b : daemon.result("branch.list", null).path("branches")) {
            side = "side".equals(b.path("name").asText()) ? b.path("head").asText() : side;
        }
        kinds.clear();
        daemon.result("changes", "{\"since\":\"" + side + "\"}")
                .path("files")
                .forEach(
                        f -> kinds.put(f.path("path").asText(), f.path("change").asText()));
        assertEquals(
                Map.of(
                        "users/sam/parts/side-kick/profile.md",
                        "removed",
                        "users/sam/parts/side-kick/notes.md",
                        "removed"),
                kinds);

        JsonNode bad = daemon.call("changes", "{\"since\":\"0123456789012345678901234567890123456789\"}");
        assertEquals("not_found", bad.at("/error/data/reason").asText(), bad.toString());
        assertEquals(
                "invalid_request",
                daemon.call("changes", "{}").at("/error/data/reason").asText());
    }

    private static McpSchema.TextResourceContents nextUpdate(Client c) throws InterruptedException {
        McpSchema.ResourceContents u = c.updated.poll(15, TimeUnit.SECONDS);
        assertNotNull(u, "no notifications/resources/updated within 15 s");
        return (McpSchema.TextResourceContents) u;
    }

    private static List<String> uris(List<McpSchema.Resource> rs) {
        List<String> out = new ArrayList<>();
        rs.forEach(r -> out.add(r.uri()));
        return out;
    }
}
