package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A memory file a human staged waits for the human's own commit: the watcher does not capture it
 * meanwhile, since a capture moves the branch under a {@code git commit} still being written
 * (which then fails), until it has waited ten minutes. Real git CLI, a daemon with its watcher.
 */
class StagedEditTest {
    private static final String YOUNG = HumanEditTest.YOUNG;
    private static final String NEEDS = "## Needs\n<!-- @anchor: needs v1 -->\n";

    @TempDir
    Path tmp;

    private TestRoot root;
    private final AtomicReference<Duration> ahead = new AtomicReference<>(Duration.ZERO);

    /** The system clock moved on by {@link #ahead}: the daemon's clock, which the test turns forward. */
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(ahead.get());
        }
    };

    @AfterEach
    void close() {
        if (root != null) {
            root.close();
        }
    }

    private void serve(Duration rescanEvery) throws Exception {
        root = new TestRoot(tmp)
                .configure(c -> c.withWatch(Duration.ofMillis(150), rescanEvery).withClock(clock));
        root.git("config", "user.name", "Sam Human");
        root.git("config", "user.email", "sam@example.com");
        String init = head();
        root.serveWatching();
        await(() -> !head().equals(init), "the example import");
    }

    private String head() {
        try {
            return root.git("rev-parse", "HEAD").strip();
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(java.util.function.BooleanSupplier c, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    private JsonNode newestEvent(String path) throws Exception {
        return root.call("history", "{\"path\":\"" + path + "\",\"limit\":1}")
                .get("result")
                .get("events")
                .get(0);
    }

    /**
     * Stages an edit of {@link #YOUNG} as {@code git add} would, but with the index first and the
     * file after it, so that no capture can ever see the edit unstaged (a watcher's capture
     * between a save and a {@code git add} on a loaded machine would take it, rightly).
     */
    private void stageQuietMornings() throws Exception {
        Path f = root.dir.resolve(YOUNG);
        Path edited = tmp.resolve("edited.md");
        Files.writeString(edited, Files.readString(f).replace(NEEDS, NEEDS + "\nQuiet mornings.\n"));
        String blob = root.git("hash-object", "-w", edited.toString()).strip();
        root.git("update-index", "--cacheinfo", "100644," + blob + "," + YOUNG);
        Files.move(edited, f, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertEquals(
                "M  " + YOUNG + "\n", root.git("status", "--porcelain"), "staged, and the file is the staged text");
    }

    @Test
    void aStagedEdit_waitsForTheCommitWrittenInAnEditor_whichSucceedsAndIsCapturedAsThatCommit() throws Exception {
        serve(Duration.ofSeconds(60));
        String before = head();
        stageQuietMornings();
        // The human writes the message for three seconds: twenty quiet periods, past the watcher's cap.
        String editor = "f(){ sleep 3; echo 'needs: quiet mornings, written in an editor' > \"$1\"; }; f";
        root.git("-c", "core.editor=" + editor, "commit", "-q");
        String commit = root.git("log", "-1", "--format=%H", "--fixed-strings", "--grep=written in an editor")
                .strip();
        assertEquals(before, root.git("rev-parse", commit + "~1").strip(), "nothing moved the branch meanwhile");
        await(() -> !head().equals(commit), "the commit's capture");
        JsonNode e = newestEvent(YOUNG);
        assertEquals("human_edit", e.get("op").asText(), e.toString());
        assertEquals("commit", e.at("/payload/human/source").asText(), e.toString());
        assertEquals(commit, e.at("/payload/human/commits/0/id").asText(), e.toString());
        assertEquals("", root.statusOnceQuiet(5_000));
    }

    @Test
    void aStagedEditLeftUncommitted_isCapturedOnceItHasWaitedTenMinutes() throws Exception {
        serve(Duration.ofMillis(300)); // rescans often: the one after the wait captures it
        String before = head();
        stageQuietMornings();
        Thread.sleep(1_500); // five rescans and ten quiet periods
        assertEquals(before, head(), "a staged file waits for its commit");
        assertEquals("M  " + YOUNG + "\n", root.git("status", "--porcelain"));
        JsonNode staged = root.call("ping", null).at("/result/writer/staged");
        assertEquals(1, staged.size(), staged.toString());
        assertEquals(YOUNG, staged.at("/0/path").asText(), staged.toString());
        assertEquals(
                Instant.parse(staged.at("/0/since").asText()).plus(Duration.ofMinutes(10)),
                Instant.parse(staged.at("/0/captured_by").asText()));
        Cli.Run status = Cli.run(root.cliArgs("status"));
        assertTrue(status.out().contains("staged: " + YOUNG + " waits for your git commit"), status.toString());

        ahead.set(Duration.ofMinutes(11));
        await(() -> !head().equals(before), "the capture once the wait is over");
        JsonNode e = newestEvent(YOUNG);
        assertEquals("human_edit", e.get("op").asText(), e.toString());
        assertEquals("needs", e.get("section_anchor").asText(), e.toString());
        assertEquals("", root.statusOnceQuiet(5_000), "the capture's index holds the staged text");
        assertTrue(root.call("ping", null).at("/result/writer/staged").isMissingNode(), "nothing waits now");
    }

    @Test
    void aStagedEdit_isStillCapturedBeforeAnAgentWritesToItsFile() throws Exception {
        serve(Duration.ofSeconds(60));
        stageQuietMornings();
        JsonNode w = root.call(
                "write",
                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + YOUNG
                        + "\",\"section\":\"Triggers\",\"item\":\"Loud rooms\"}]}");
        assertTrue(w.has("result"), w.toString());
        String text = Files.readString(root.dir.resolve(YOUNG));
        assertTrue(text.contains("Quiet mornings.") && text.contains("Loud rooms"), text);
        JsonNode human =
                root.call("history", "{\"path\":\"" + YOUNG + "\",\"limit\":2}").at("/result/events/1");
        assertEquals("human_edit", human.get("op").asText(), human.toString());
        assertEquals("needs", human.get("section_anchor").asText(), human.toString());
    }
}
