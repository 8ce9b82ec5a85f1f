package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A human's git commands that make commits out of other commits ({@code revert}), beside a daemon
 * child process: an agent's write may leave the memory file by the human's own commit, which
 * memoryd records as theirs, but never a ledger line: the ledger is append-only, and a commit made
 * with git that took lines out of a segment or changed one has them put back, so the root and every
 * clone of it still verify.
 */
class HistoryEditsBesideWritesTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    static final String YOUNG = "users/sam/parts/young-one/profile.md";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp; // a failure leaves the root and daemon.log

    ServedExample served;

    @BeforeEach
    void serve() throws Exception {
        served = ServedExample.start(tmp);
    }

    @AfterEach
    void stop() throws Exception {
        served.close();
    }

    private String acked(JsonNode reply, String what) {
        JsonNode c = reply.path("result").path("commit");
        if (!c.isTextual()) {
            throw served.root.failure(what + " was not acknowledged: " + reply);
        }
        return c.asText();
    }

    private String write(String path, String section, String item) throws IOException {
        return acked(served.daemon.call("write", Decl.of(Decl.appendItem(path, section, item))), item);
    }

    /** The newest segment file of the served chain and its line count. */
    private Path activeSegment() throws IOException {
        try (Stream<Path> s = Files.walk(served.cfg.root().resolve("ledger/main"))) {
            return s.filter(p -> p.toString().endsWith(".ndjson"))
                    .max(Path::compareTo)
                    .orElseThrow();
        }
    }

    /** Writes until the first segment is full and a second one is active; the first's path. */
    private Path fillFirstSegment() throws IOException {
        Path first = activeSegment();
        for (int i = 0; activeSegment().equals(first); i++) {
            assertTrue(i < 400, "the first segment never filled");
            write(CRITIC, "Triggers", "filling " + i);
        }
        return first;
    }

    private static long lines(Path p) throws IOException {
        try (Stream<String> s = Files.lines(p)) {
            return s.count();
        }
    }

    /**
     * The agent's write that fills a segment is reverted: the revert's commit takes the item out of
     * the file (the human's choice) and the line out of the segment, which memoryd's next line then
     * leaves behind as a full one. Before, that segment stayed one line short at HEAD for good, and
     * every clone failed {@code ledger verify} ("line seq N was removed").
     */
    @Test
    void aRevertOfMemorydsCommitThatFilledASegment_takesTheItemOut_butNoLedgerLine() throws Exception {
        Path first = fillFirstSegment();
        long full = lines(first);
        Path segment = activeSegment();
        for (int i = 0; lines(segment) < full - 1; i++) {
            write(CRITIC, "Triggers", "more " + i);
        }
        String rel = served.cfg.root().relativize(segment).toString();
        String filled = write(YOUNG, "Open Questions", "to be reverted");
        assertEquals(full, lines(served.cfg.root().resolve(rel)), "the write filled " + rel);

        HumanGit.Result revert = served.git.revert(50, filled);
        assertTrue(revert.ok(), revert.toString());
        write(CRITIC, "Triggers", "after the revert");
        assertFalse(activeSegment().endsWith(segment.getFileName()), "the write after it opened a new segment");

        served.root.awaitMemorydFilesClean("after the revert", 15_000);
        assertFalse(served.git.ok("show", "HEAD:" + YOUNG).contains("to be reverted"), "the human took the item out");
        assertEquals(
                full,
                served.git.ok("show", "HEAD:" + rel).lines().count(),
                "the segment at HEAD holds every line, the reverted write's too");
        assertEquals(
                served.git.ok("show", "HEAD:" + rel),
                Files.readString(served.cfg.root().resolve(rel)),
                "and on disk");
        served.root.assertLedgerVerifies("after the revert");
        JsonNode history = served.daemon.result("history", "{\"path\":\"" + YOUNG + "\",\"limit\":5}");
        assertTrue(history.toString().contains("human_edit"), "the revert is recorded as the human's edit: " + history);
    }

    /**
     * A commit made with git that changes only a full segment (a line edited by hand and committed)
     * is tampering, as a changed segment on disk is: memoryd puts the lines back in its next commit
     * and on disk, opens a {@code ledger_tampered} drift item naming the commit, and the root and a
     * clone verify.
     */
    @Test
    void aHumansCommitOfAnEditedFullSegment_isPutBackByMemorydsNextCommit() throws Exception {
        Path first = fillFirstSegment();
        String rel = served.cfg.root().relativize(first).toString();
        String memorydsText = served.git.ok("show", "HEAD:" + rel);
        Files.writeString(first, memorydsText.replaceFirst("\"actor\":\"", "\"actor\":\"x"));
        HumanGit.Result c = served.git.retryingLocks(50, "commit", "-qam", "human: an edit of a full segment");
        assertTrue(c.ok(), c.toString());

        write(CRITIC, "Triggers", "after the edit");
        served.root.awaitMemorydFilesClean("after the edit", 15_000);
        assertEquals(memorydsText, served.git.ok("show", "HEAD:" + rel), "the segment at HEAD is memoryd's");
        assertEquals(memorydsText, Files.readString(first), "and on disk");
        served.root.assertLedgerVerifies("after the edit");
        JsonNode drift = served.daemon.result("drift.list", null).path("items");
        assertEquals(1, drift.size(), drift::toString);
        assertTrue(
                drift.toString().contains("ledger_tampered") && drift.toString().contains(rel), drift::toString);
    }

    /**
     * A human's commit that deletes a full segment, and no agent writing after it: memoryd puts the
     * segment back on disk and commits it on its own once writes pause, so the branch and a clone of
     * it verify and {@code git status} is clean without waiting for the next write. Before, the
     * segment waited untracked on disk and the branch failed {@code ledger verify} until some agent
     * wrote.
     */
    @Test
    void aHumansCommitDeletingAFullSegment_isPutBackWithoutWaitingForAWrite() throws Exception {
        Path first = fillFirstSegment();
        String rel = served.cfg.root().relativize(first).toString();
        String memorydsText = served.git.ok("show", "HEAD:" + rel);
        Files.delete(first);
        HumanGit.Result c = served.git.retryingLocks(50, "commit", "-qam", "human: a segment deleted");
        assertTrue(c.ok(), c.toString());
        // Found by its message: memoryd's put-back can land before a look at HEAD.
        String humans = served.git
                .ok("log", "-1", "--format=%H", "--fixed-strings", "--grep=human: a segment deleted")
                .strip();

        awaitAtHead(rel, memorydsText.substring(memorydsText.length() - 80), "the deleted segment");
        assertEquals(memorydsText, served.git.ok("show", "HEAD:" + rel), "the segment at HEAD is memoryd's again");
        assertEquals(humans, served.git.ok("rev-parse", "HEAD~1").strip(), "one commit on top of the human's");
        assertTrue(
                served.git.ok("log", "-1", "--format=%s").startsWith("memoryd: put back"), served.git.ok("log", "-1"));
        assertEquals(memorydsText, Files.readString(first), "and on disk");
        served.root.awaitMemorydFilesClean("after the put-back", 15_000);
        served.root.assertLedgerVerifies("after the put-back");
        assertEquals(0, served.daemon.result("drift.list", null).path("items").size(), "nothing was tampered with");
        write(CRITIC, "Triggers", "writes go on");
        served.root.assertLedgerVerifies("after the next write");
    }

    /** Saves the notes as an editor does (temp file, rename) with {@code word} added to the Inbox. */
    private void editorSave(String word) throws IOException {
        Path f = served.cfg.root().resolve("users/sam/notes.md");
        String inbox = "<!-- @anchor: inbox v1 -->\n\n";
        String text = Files.readString(f);
        int at = text.indexOf(inbox) + inbox.length();
        Path swap = f.resolveSibling(".notes.md.swp");
        Files.writeString(swap, text.substring(0, at) + "- " + word + "\n" + text.substring(at));
        Files.move(
                swap,
                f,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private void awaitAtHead(String path, String text, String what) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!served.git.run("show", "HEAD:" + path).out().contains(text)) {
            if (System.nanoTime() > deadline) {
                throw served.root.failure(what + " never reached HEAD");
            }
            Thread.sleep(50);
        }
    }

    /**
     * A human's saved word, captured, then a {@code reset --hard} to before its capture: memoryd
     * redoes the capture on top of the moved branch, and puts the word back in the file too, where
     * the reset had put the older text. Before, the redo committed the word but left the file as the
     * reset wrote it, and the watcher's next capture took the reset's text for the human's edit: the
     * word was gone from the file and from the branch, in the human's name (the soak's round 30 of
     * seed 20261130).
     */
    @Test
    void aResetToBeforeAHumansCapturedSave_leavesTheirWordInTheFileAndTheBranch() throws Exception {
        editorSave("a word of my own");
        awaitAtHead("users/sam/notes.md", "- a word of my own\n", "the captured save");
        write(CRITIC, "Triggers", "after the save 1");
        write(CRITIC, "Triggers", "after the save 2");
        HumanGit.Result reset = served.git.retryingLocks(50, "reset", "-q", "--hard", "HEAD~3");
        assertTrue(reset.ok(), reset.toString());
        assertFalse(
                Files.readString(served.cfg.root().resolve("users/sam/notes.md"))
                        .contains("a word of my own"),
                "the reset took the word out of the file");
        write(CRITIC, "Triggers", "after the reset");
        served.root.awaitMemorydFilesClean("after the reset", 15_000);
        Thread.sleep(3_000); // the watcher's quiet period after the reset's file events, and its capture
        served.root.awaitMemorydFilesClean("after the watcher", 15_000);
        assertTrue(
                Files.readString(served.cfg.root().resolve("users/sam/notes.md"))
                        .contains("- a word of my own\n"),
                "the word is back in the file");
        assertTrue(served.git.ok("show", "HEAD:users/sam/notes.md").contains("- a word of my own\n"), "and at HEAD");
        String critic = served.git.ok("show", "HEAD:" + CRITIC);
        for (String item : List.of("after the save 1", "after the save 2", "after the reset")) {
            assertTrue(critic.contains("- " + item + "\n"), item);
        }
        served.root.assertLedgerVerifies("after the reset");
    }
}
