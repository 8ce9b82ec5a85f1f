package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A human splits git's index while a daemon child serves the root ({@code git update-index
 * --split-index}, or {@code core.splitIndex true} and any git command that writes the index): a
 * form JGit cannot read. From then on writes are refused {@code unavailable}, naming the split
 * index and the commands that make it whole, with nothing written or captured, and {@code ping}
 * says why; once the index is whole again, writes go on without a restart. Before, every write
 * was refused with JGit's "DIRC extension 'link' not supported" or "zero length name", and no
 * word of what to do.
 */
class SplitIndexWhileServedTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    @TempDir
    Path tmp;

    TestRoot root;
    DaemonProcess daemon;

    @BeforeEach
    void serve() throws Exception {
        root = new TestRoot(tmp);
        daemon = DaemonProcess.start(root.cfg, tmp.resolve("daemon.log"));
        daemon.awaitImported();
    }

    @AfterEach
    void stop() throws Exception {
        daemon.close();
    }

    private JsonNode append(String item) throws Exception {
        return daemon.call("write", Decl.of(Decl.appendItem(CRITIC, "Triggers", item)));
    }

    @Test
    void anIndexSplitWhileServed_refusesWritesNamingTheFix_untilItIsWholeAgain() throws Exception {
        assertTrue(append("Before the split").has("result"));
        root.git("update-index", "--split-index");
        String head = root.git("rev-parse", "HEAD").strip();

        JsonNode refused = append("While the index is split");
        assertEquals(
                "unavailable", refused.path("error").path("data").path("reason").asText(), refused.toString());
        assertEquals(
                "split", refused.path("error").path("data").path("index_format").asText(), refused.toString());
        String message = refused.path("error").path("message").asText();
        assertTrue(
                message.contains("git's index is split")
                        && message.contains("update-index --no-split-index")
                        && message.contains("config core.splitIndex false"),
                message);
        assertEquals(head, root.git("rev-parse", "HEAD").strip(), "nothing committed");
        assertTrue(!Files.readString(root.dir.resolve(CRITIC)).contains("While the index is split"));
        JsonNode writer = daemon.result("ping", null).path("writer");
        assertEquals("split", writer.path("index_format").asText(), "ping says why writes wait: " + writer);
        Cli.Run status = Cli.run(
                "status",
                "--root",
                root.dir.toString(),
                "--key-file",
                root.cfg.keyFile().toString());
        assertTrue(status.out().contains("git's index is split"), "status says so: " + status);

        root.git("config", "core.splitIndex", "true"); // git's next write of the index splits it again
        root.git("update-index", "--no-split-index");
        refused = append("While git would split it again");
        assertTrue(refused.path("error").path("message").asText().contains("core.splitIndex true"), refused.toString());

        root.git("config", "core.splitIndex", "false");
        JsonNode resumed = append("After the split");
        assertTrue(resumed.has("result"), resumed.toString());
        assertTrue(Files.readString(root.dir.resolve(CRITIC)).contains("- After the split\n"));
        assertEquals("", root.git("status", "--porcelain"), "the index is in step again");
        assertTrue(
                daemon.result("ping", null).path("writer").path("index_format").isMissingNode(),
                "no longer waiting on the index");
    }
}
