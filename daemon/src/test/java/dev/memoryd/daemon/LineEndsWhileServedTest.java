package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A human turns on git's line-end conversion of memory files while a daemon child serves the
 * root ({@code git config core.autocrlf true}, or a committed {@code eol=crlf} attribute): from
 * then on writes are refused ({@code unavailable}, naming the setting and what ends it) and a file
 * git rewrote with CRLF is not captured as the human's edit; once the conversion is off, writes go
 * on. Before, {@code serve} checked this at its start only: the write was committed and a checkout
 * made while the setting was on was recorded as the human's edit of every line.
 */
class LineEndsWhileServedTest {
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

    private String head() throws Exception {
        return root.git("rev-parse", "HEAD").strip();
    }

    private long ledgerLines() throws Exception {
        return new RootInvariants(daemon, tmp).events().size();
    }

    @Test
    void autocrlfTurnedOnWhileServed_refusesWritesAndCapturesNoCheckout_untilTurnedOff() throws Exception {
        assertTrue(append("Before the setting").has("result"));
        root.git("config", "core.autocrlf", "true");

        JsonNode refused = append("While git converts");
        assertEquals(
                "unavailable", refused.path("error").path("data").path("reason").asText(), refused.toString());
        assertTrue(
                refused.toString().contains("core.autocrlf true")
                        && refused.toString().contains("config core.autocrlf false"),
                refused.toString());
        assertEquals(
                "core.autocrlf true",
                refused.path("error").path("data").path("line_ends").asText(),
                refused.toString());

        String head = head();
        long lines = ledgerLines();
        Path critic = root.dir.resolve(CRITIC);
        Files.delete(critic);
        root.git("checkout", "--", CRITIC); // git writes it again, now with CRLF
        assertTrue(Files.readString(critic).contains("\r\n"), "git converted the file it wrote");
        daemon.call("capture", null);
        Thread.sleep(700); // the watcher's quiet period, several times over
        daemon.call("capture", null);
        assertEquals(head, head(), "nothing committed while git converts");
        assertEquals(lines, ledgerLines(), "git's rewrite is not recorded as an edit");
        JsonNode writer = daemon.result("ping", null).path("writer");
        assertEquals("core.autocrlf true", writer.path("line_ends").asText(), "ping says why writes wait: " + writer);

        root.git("config", "core.autocrlf", "false");
        Files.delete(critic);
        root.git("checkout", "--", CRITIC); // and back as the branch holds it
        JsonNode resumed = append("After the setting");
        assertTrue(resumed.has("result"), resumed.toString());
        String text = Files.readString(critic);
        assertFalse(text.contains("\r\n"), text);
        assertTrue(text.contains("- After the setting\n") && !text.contains("While git converts"), text);
        assertTrue(
                daemon.result("ping", null).path("writer").path("line_ends").isMissingNode(),
                "no longer waiting on line ends");
    }

    @Test
    void anEolAttributeCommittedWhileServed_refusesWrites_untilACommitRemovesIt() throws Exception {
        Files.writeString(root.dir.resolve(".gitattributes"), "*.md text eol=crlf\n");
        root.git("add", ".gitattributes");
        root.git("commit", "-qm", "line ends for Windows");

        JsonNode refused = append("While the attribute stands");
        assertEquals(
                "unavailable", refused.path("error").path("data").path("reason").asText(), refused.toString());
        assertTrue(refused.toString().contains(".gitattributes"), refused.toString());

        root.git("rm", "-q", ".gitattributes");
        root.git("commit", "-qm", "line ends as they are");
        JsonNode resumed = append("After the attribute");
        assertTrue(resumed.has("result"), resumed.toString());
        assertTrue(Files.readString(root.dir.resolve(CRITIC)).contains("- After the attribute\n"));
        assertTrue(
                root.git("log", "--format=%s").contains("line ends as they are"),
                "the human's commits are on the branch");
    }
}
