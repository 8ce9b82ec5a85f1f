package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.cli.Main;
import dev.memoryd.daemon.rpc.JsonRpc;
import dev.memoryd.daemon.rpc.catalogue.MethodCatalogue;
import dev.memoryd.daemon.rpc.catalogue.MethodSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code memoryd mcp} driven by an MCP client memoryd did not write: the official TypeScript SDK
 * ({@code @modelcontextprotocol/sdk}, pinned in {@code src/test/resources/mcp-ts-client}),
 * installed by npm into {@code target/mcp-ts-client} on first run. Its script starts the MCP
 * server as its own child process, in front of a real daemon child process, and prints what it
 * saw; that client also checks every tool result against the tool's outputSchema. No npm, or an
 * install that fails, fails the test: this is the interoperability claim.
 */
@Timeout(600)
class McpTypeScriptClientTest extends DaemonChildTest {
    static final Path CLIENT_SRC = Path.of("src", "test", "resources", "mcp-ts-client");
    static final Path CLIENT = Path.of("target", "mcp-ts-client");
    static final String OVERVIEW = "users/sam/overview.md";

    @BeforeAll
    static void up() throws Exception {
        installClient();
    }

    /** npm ci of the pinned client, unless the same lock file was installed already. */
    static void installClient() throws Exception {
        Files.createDirectories(CLIENT);
        for (String f : List.of("package.json", "package-lock.json", "session.mjs")) {
            Files.copy(CLIENT_SRC.resolve(f), CLIENT.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        Path stamp = CLIENT.resolve("node_modules/.installed-lock");
        byte[] lock = Files.readAllBytes(CLIENT.resolve("package-lock.json"));
        if (Files.exists(stamp) && java.util.Arrays.equals(lock, Files.readAllBytes(stamp))) {
            return;
        }
        Path log = CLIENT.resolve("npm-install.log");
        Process npm;
        try {
            npm = new ProcessBuilder(
                            "npm",
                            "ci",
                            "--no-audit",
                            "--no-fund",
                            "--cache",
                            CLIENT.resolve(".npm-cache").toAbsolutePath().toString())
                    .directory(CLIENT.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            throw new AssertionError(
                    "npm could not be started (" + e.getMessage() + "): this test installs the MCP"
                            + " TypeScript SDK with npm into " + CLIENT.toAbsolutePath() + "; install node 20 and npm",
                    e);
        }
        boolean done = npm.waitFor(300, TimeUnit.SECONDS);
        if (!done || npm.exitValue() != 0) {
            npm.destroyForcibly();
            throw new AssertionError("npm ci of @modelcontextprotocol/sdk into " + CLIENT.toAbsolutePath()
                    + (done ? " failed with exit " + npm.exitValue() : " took over 300 s")
                    + " (is the npm registry reachable?):\n"
                    + Files.readString(log));
        }
        Files.write(stamp, lock);
    }

    @Test
    void theTypeScriptSdkClient_listsTools_writesReadsSearches_getsContext_andAConflict() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(
                "node",
                "session.mjs",
                java,
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "mcp",
                "--root",
                root.dir.toString()));
        Path log = tmp.resolve("node.log");
        Process node = new ProcessBuilder(cmd)
                .directory(CLIENT.toFile())
                .redirectError(log.toFile())
                .start();
        byte[] stdout = node.getInputStream().readAllBytes();
        assertTrue(node.waitFor(120, TimeUnit.SECONDS), "the node client did not finish");
        String err = Files.readString(log);
        assertEquals(0, node.exitValue(), "the TypeScript client failed:\n" + err);
        JsonNode out = JsonRpc.MAPPER.readTree(new String(stdout, StandardCharsets.UTF_8).strip());

        assertEquals("memoryd", out.at("/server/name").asText(), out.toString());
        assertTrue(out.at("/capabilities/tools").isObject());
        assertTrue(out.at("/capabilities/resources/subscribe").asBoolean());
        assertTrue(out.path("instructions").asText().contains("guide"));

        Set<String> expected = new TreeSet<>(Set.of("guide"));
        MethodCatalogue.get().methods().stream().map(MethodSpec::toolName).forEach(expected::add);
        Set<String> tools = new TreeSet<>();
        out.path("tools").forEach(t -> tools.add(t.asText()));
        assertEquals(expected, tools);
        assertTrue(out.at("/writeTool/annotations/destructiveHint").asBoolean());
        assertTrue(out.at("/guide/content/0/text").asText().contains("Evidence (curated)"));

        JsonNode write = out.path("write");
        assertFalse(write.path("isError").asBoolean(), write.toString());
        assertTrue(write.at("/structuredContent/changed").asBoolean(), write.toString());
        assertTrue(write.at("/structuredContent/events/0/token").asText().startsWith("ev:"), write.toString());
        assertTrue(
                out.at("/after/content").asText().contains("- Whistling when anxious"),
                out.path("after").toString());
        assertNotEquals(out.at("/before/hash").asText(), out.at("/after/hash").asText());
        assertTrue(root.file(OVERVIEW).contains("- Whistling when anxious"));
        assertEquals(
                "ts-sdk-e2e",
                daemon.result("history", "{\"path\":\"" + OVERVIEW + "\",\"limit\":1}")
                        .at("/events/0/actor")
                        .asText(),
                "the client's name is the writes' actor");

        JsonNode hits = out.at("/search/hits");
        assertTrue(hits.size() >= 1, out.path("search").toString());
        assertEquals(OVERVIEW, hits.get(0).path("path").asText(), hits.toString());

        assertFalse(out.at("/append/isError").asBoolean(), out.path("append").toString());
        assertEquals(2, out.at("/context/turns").size(), out.path("context").toString());
        assertTrue(out.at("/context/slice_id").isTextual(), out.path("context").toString());

        JsonNode conflict = out.path("conflict");
        assertTrue(conflict.path("isError").asBoolean(), conflict.toString());
        String text = conflict.at("/content/0/text").asText();
        assertTrue(text.startsWith("conflict: ") && text.contains("read it again"), text);
        JsonNode data = JsonRpc.MAPPER.readTree(conflict.at("/content/1/text").asText());
        assertEquals("conflict", data.path("reason").asText(), data.toString());
        assertEquals(out.at("/after/hash").asText(), data.path("current_hash").asText(), data.toString());
        assertFalse(root.file(OVERVIEW).contains("Humming"), "a refused write changed the file");

        Set<String> uris = new TreeSet<>();
        out.path("resources").forEach(r -> uris.add(r.path("uri").asText()));
        assertTrue(uris.contains("memoryd://" + OVERVIEW), uris.toString());
        assertEquals(root.file(OVERVIEW), out.at("/resource/0/text").asText());
        assertEquals("text/markdown", out.at("/resource/0/mimeType").asText());
    }
}
