package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An MCP client that starts {@code memoryd mcp} before any daemon serves the root (an editor
 * opened before {@code memoryd serve}): the shim lists no resource and says how to start a daemon
 * when one is read, and once a daemon child process serves the root, the client hears {@code
 * notifications/resources/list_changed} and finds every memory file listed and readable.
 */
@Timeout(300)
class McpShimBeforeDaemonTest {
    @TempDir
    Path tmp;

    @Test
    void aShimStartedBeforeTheDaemon_listsTheMemoryFiles_onceADaemonServes() throws Exception {
        TestRoot root = new TestRoot(tmp);
        try (McpResourcesTest.Client c = new McpResourcesTest.Client("early", root.dir)) {
            assertEquals(List.of(), c.mcp.listResources().resources(), "no daemon: nothing to list");
            McpError none = assertThrows(
                    McpError.class,
                    () -> c.mcp.readResource(new McpSchema.ReadResourceRequest("memoryd://users/sam/notes.md")));
            assertTrue(none.getMessage().contains("memoryd serve"), none.getMessage());

            try (DaemonProcess daemon = DaemonProcess.start(root.cfg, tmp.resolve("daemon.log"))) {
                daemon.awaitImported();
                List<McpSchema.Resource> relisted = c.relisted.poll(30, TimeUnit.SECONDS);
                assertNotNull(relisted, "no notifications/resources/list_changed within 30 s of the daemon's start");
                List<String> uris = c.mcp.listResources().resources().stream()
                        .map(McpSchema.Resource::uri)
                        .toList();
                assertTrue(uris.contains("memoryd://users/sam/notes.md"), uris.toString());
                assertTrue(uris.contains("memoryd://users/sam/parts/young-one/profile.md"), uris.toString());
                assertTrue(c.read("users/sam/notes.md").contains("## Parking Lot"));
            }
        }
    }
}
