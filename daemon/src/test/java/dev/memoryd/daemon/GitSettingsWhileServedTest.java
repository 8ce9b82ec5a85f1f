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
 * A human changes how git writes or reads the working tree while a daemon child serves the root,
 * and writes wait until it is undone, each refusal naming the setting and what ends it:
 *
 * <ul>
 *   <li>line-end conversion of memory files ({@code git config core.autocrlf true}, or a committed
 *       {@code eol=crlf} attribute): a file git rewrote with CRLF is not captured as the human's
 *       edit. Before, {@code serve} checked this at its start only: the write was committed and a
 *       checkout made while the setting was on was recorded as the human's edit of every line;
 *   <li>a split index ({@code git update-index --split-index}, {@code core.splitIndex true}), a
 *       form JGit cannot read: nothing is written or captured, and {@code ping} and {@code status}
 *       say why. Before, every write was refused with JGit's "DIRC extension 'link' not supported"
 *       or "zero length name", and no word of what to do.
 * </ul>
 */
class GitSettingsWhileServedTest {
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
