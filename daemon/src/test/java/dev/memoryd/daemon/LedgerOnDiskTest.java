package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ledger segment on disk is checked before every append: a git command that rewrote the
 * working tree and failed to move the branch is repaired from the branch (never captured as a
 * human's edit), and a segment changed by hand is refused until it is put back.
 */
class LedgerOnDiskTest extends ServedRootTest {
    static final String CRITIC = WriteEndToEndTest.CRITIC;

    private JsonNode append(String item) throws Exception {
        return root.call(
                "write",
                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                        + "\",\"section\":\"Open Questions\",\"item\":\"" + item + "\"}]}");
    }

    private Path activeSegment() throws Exception {
        try (var s = Files.walk(root.dir.resolve("ledger/main"))) {
            return s.filter(Files::isRegularFile)
                    .max(Comparator.comparing(Path::toString))
                    .orElseThrow();
        }
    }

    private static int run(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        p.getInputStream().readAllBytes();
        return p.waitFor();
    }

    @Test
    void aResetWhoseRefMoveFailed_isRepairedFromTheBranch_notCapturedAsAHumansEdit() throws Exception {
        for (int i = 1; i <= 4; i++) {
            assertTrue(append("kept " + i).has("result"));
        }
        String head = root.git("rev-parse", "HEAD").strip();
        // Git rewrites the working tree and index, then cannot lock the ref, as when memoryd's
        // commit wins the race for it.
        Path lock = root.dir.resolve(".git/refs/heads/main.lock");
        Files.writeString(lock, "");
        assertNotEquals(0, run(root.dir, "git", "reset", "--hard", "HEAD~3"));
        Files.delete(lock);
        assertFalse(root.file(CRITIC).contains("- kept 4\n"), "git rolled the file back");

        JsonNode r = append("after");
        long deadline = System.currentTimeMillis() + 10_000;
        while (r.has("error") && System.currentTimeMillis() < deadline) {
            assertEquals("unavailable", r.get("error").get("data").get("reason").asText(), r.toString());
            Thread.sleep(100);
            r = append("after");
        }
        assertTrue(r.has("result"), r.toString());
        String text = root.file(CRITIC);
        for (int i = 1; i <= 4; i++) {
            assertTrue(text.contains("- kept " + i + "\n"), "kept " + i + " in " + text);
        }
        assertTrue(text.contains("- after\n"));
        assertEquals(text, root.git("show", "HEAD:" + CRITIC));
        assertEquals("", root.git("status", "--porcelain"));
        String log = root.git("log", "--format=%s", head + "..HEAD");
        assertFalse(log.contains("captured"), "nothing taken for a human's edit: " + log);
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
    }

    @Test
    void aResetWhoseRefMoveFailed_thatLeftTheNewSegmentAlone_isRepairedEverywhere_notOnlyWhereAgentsWriteNext()
            throws Exception {
        // Writes until the newest one began a new ledger segment: a reset to a few commits back
        // then leaves that segment as it was and rolls back only the full one before it.
        for (int i = 1; ; i++) {
            assertTrue(append("kept " + i).has("result"));
            if (i > 3 && Files.readAllLines(activeSegment()).size() == 1) {
                break;
            }
        }
        Path active = activeSegment();
        String fullSegment = root.dir.relativize(active).toString().replaceFirst("\\d+\\.ndjson$", "")
                + String.format(
                        "%08d.ndjson",
                        Long.parseLong(active.getFileName().toString().replace(".ndjson", "")) - 1);
        String criticAtHead = root.git("show", "HEAD:" + CRITIC);
        String segmentAtHead = root.git("show", "HEAD:" + fullSegment);
        // A git reset that read the index before memoryd's last commit took git's lock: the new
        // segment is not in the index it works from, so it stays on disk, untracked, while the
        // older commit's files and index are written; then the ref move fails.
        root.git("rm", "-q", "--cached", root.dir.relativize(active).toString());
        root.git("read-tree", "--reset", "-u", "HEAD~3");
        assertTrue(Files.exists(active), "the new segment is left alone");
        assertNotEquals(criticAtHead, root.file(CRITIC), "git rolled the file back");
        assertNotEquals(segmentAtHead, root.file(fullSegment), "and the full segment");

        String young = "users/sam/parts/young-one/profile.md";
        JsonNode r = root.call(
                "write",
                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + young
                        + "\",\"section\":\"Open Questions\",\"item\":\"elsewhere\"}]}");
        long deadline = System.currentTimeMillis() + 10_000;
        while (r.has("error") && System.currentTimeMillis() < deadline) {
            assertEquals("unavailable", r.get("error").get("data").get("reason").asText(), r.toString());
            Thread.sleep(100);
            r = root.call(
                    "write",
                    "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + young
                            + "\",\"section\":\"Open Questions\",\"item\":\"elsewhere\"}]}");
        }
        assertTrue(r.has("result"), r.toString());
        assertEquals(criticAtHead, root.file(CRITIC), "the file no agent wrote next is put back too");
        assertEquals(criticAtHead, root.git("show", "HEAD:" + CRITIC));
        assertEquals(segmentAtHead, root.file(fullSegment));
        assertEquals(segmentAtHead, root.git("show", "HEAD:" + fullSegment));
        // What a human's `git add -A && git commit` would take now: nothing of the rollback.
        assertEquals("", root.git("status", "--porcelain"));
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
    }

    @Test
    void aResetToHeadThatResolvedHeadBeforeMemorydsCommit_doesNotTakeTheCommitOffTheBranch() throws Exception {
        assertTrue(append("before").has("result"));
        String resolved = root.git("rev-parse", "HEAD").strip(); // what git stash's reset --hard HEAD resolved
        assertTrue(append("made meanwhile").has("result"));
        String memorydsLast = root.git("rev-parse", "HEAD").strip();
        // The rest of that reset, as git does it: files and index to the resolved commit, then the
        // branch moved there against its value now.
        root.git("read-tree", "--reset", "-u", resolved);
        root.git("update-ref", "-m", "reset: moving to HEAD", "HEAD", resolved, memorydsLast);
        assertFalse(root.file(CRITIC).contains("- made meanwhile\n"));

        JsonNode r = append("after");
        assertTrue(r.has("result"), r.toString());
        String text = root.git("show", "HEAD:" + CRITIC);
        assertTrue(text.contains("- made meanwhile\n") && text.contains("- after\n"), text);
        assertEquals(text, root.file(CRITIC));
        assertTrue(root.git("merge-base", "--is-ancestor", memorydsLast, "HEAD").isEmpty());
        assertEquals("", root.git("status", "--porcelain"));
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
    }

    @Test
    void aResetToAnOlderCommitByName_isKept_withMemorydsLaterWritesRedoneOnTop() throws Exception {
        assertTrue(append("one").has("result"));
        String older = root.git("rev-parse", "HEAD").strip();
        assertTrue(append("two").has("result"));
        root.git("reset", "-q", "--hard", older);
        JsonNode r = append("three");
        assertTrue(r.has("result"), r.toString());
        String text = root.git("show", "HEAD:" + CRITIC);
        assertTrue(text.contains("- one\n") && text.contains("- two\n") && text.contains("- three\n"), text);
        assertTrue(root.git("merge-base", "--is-ancestor", older, "HEAD").isEmpty(), "the human's move is kept");
        assertEquals("", root.git("status", "--porcelain"));
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
    }

    @Test
    void aBranchMovedBackWhileTheWriterWaitedForTheIndex_isNotRedoneOntoTwice() throws Exception {
        assertTrue(append("one").has("result"));
        String older = root.git("rev-parse", "HEAD").strip();
        assertTrue(append("two").has("result"));
        String memorydsLast = root.git("rev-parse", "HEAD").strip();
        // A git command holds the index while the branch is moved off memoryd's commit and back, as
        // a reset and the return to ORIG_HEAD do; the writer sees the first move and waits for the index.
        Path lock = root.dir.resolve(".git/index.lock");
        Files.writeString(lock, "");
        root.git("update-ref", "refs/heads/main", older);
        java.util.concurrent.CompletableFuture<JsonNode> w = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return append("three");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(400);
        root.git("update-ref", "refs/heads/main", memorydsLast);
        Files.delete(lock);
        JsonNode r = w.get(20, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(r.has("result"), r.toString());
        String text = root.git("show", "HEAD:" + CRITIC);
        assertEquals(1, text.split("- two\n", -1).length - 1, "one 'two', not redone on top of itself: " + text);
        assertTrue(text.contains("- three\n"), text);
        assertTrue(root.git("merge-base", "--is-ancestor", memorydsLast, "HEAD").isEmpty());
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
    }

    @Test
    void aFullSegmentsIndexEntryAGitCommandPutBack_isMendedOnceWritesPause() throws Exception {
        List<String> segments = List.of();
        for (int i = 0; i < 100 && segments.size() < 2; i++) {
            assertTrue(append("filler " + i).has("result"));
            segments = root.git("ls-files", "ledger/main").lines().sorted().toList();
        }
        assertTrue(segments.size() >= 2, segments.toString());
        String full = segments.get(segments.size() - 2);
        String older = root.git("rev-list", "-1", "HEAD~3", "--", full).strip();
        String olderBlob = root.git("rev-parse", older + ":" + full).strip();
        // what `git stash pop` does to memoryd's entries: the index as the command read it at its start
        root.git("update-index", "--cacheinfo", "100644," + olderBlob + "," + full);
        assertTrue(root.git("status", "--porcelain").contains("MM " + full), root.git("status", "--porcelain"));
        assertTrue(append("after").has("result"));
        assertEquals("", root.statusOnceQuiet(15_000), "git status once writes paused");
    }

    @Test
    void aFileGitPutBackToAnOlderVersionWithoutACommit_getsMemorydsTextBack_notTakenForAHumansEdit() throws Exception {
        assertTrue(append("one").has("result"));
        assertTrue(append("two").has("result"));
        String authorsBefore = root.git("log", "--format=%an");
        // git writes the older text and records it in the index; the ledger segment is left as it is
        root.git("checkout", "HEAD~1", "--", CRITIC);
        assertFalse(root.file(CRITIC).contains("- two\n"));
        JsonNode r = append("three");
        assertTrue(r.has("result"), r.toString());
        String text = root.git("show", "HEAD:" + CRITIC);
        assertTrue(text.contains("- two\n") && text.contains("- three\n"), "an acknowledged write lost: " + text);
        assertEquals(text, root.file(CRITIC));
        String authorsAfter = root.git("log", "--format=%an");
        assertEquals(
                authorsBefore.lines().count() + 1,
                authorsAfter.lines().count(),
                "one commit, the agent's; no human edit recorded: " + authorsAfter);
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
        JsonNode putBack = root.call("ping", null).path("result").path("writer").path("put_back");
        assertEquals(CRITIC, putBack.path("path").asText(), "ping tells the human what was written back: " + putBack);
        assertEquals(1, putBack.path("count").asLong(), putBack.toString());
    }

    @Test
    void anEditorsSaveOfAnOlderVersion_isStillTheHumansEdit() throws Exception {
        assertTrue(append("one").has("result"));
        String older = root.file(CRITIC);
        assertTrue(append("two").has("result"));
        Files.writeString(root.dir.resolve(CRITIC), older); // an editor's undo and save: the index is not told
        JsonNode r = append("three");
        assertEquals("conflict", r.path("error").path("data").path("reason").asText(), r.toString());
        String text = root.git("show", "HEAD:" + CRITIC);
        assertFalse(text.contains("- two\n"), "the human took it out: " + text);
        assertEquals(older, root.file(CRITIC));
        assertTrue(root.git("log", "--format=%s", "-1").contains("human edit"), root.git("log", "--format=%s", "-1"));
    }

    @Test
    void aWriteWaitsWhileGitStashTakesItsSnapshot_soTheStashHoldsOnlyTheHumansChanges() throws Exception {
        assertTrue(append("before").has("result"));
        // git stash builds its snapshot in a temporary index, without the index lock, against the
        // HEAD it read first: a commit made meanwhile would go into the stash as the human's change.
        Path snapshot = root.dir.resolve(".git/index.stash.4242");
        Files.writeString(snapshot, "");
        java.util.concurrent.CompletableFuture<JsonNode> w = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return append("during the stash");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);
        assertFalse(w.isDone(), "no commit while the stash takes its snapshot");
        assertFalse(root.git("show", "HEAD:" + CRITIC).contains("- during the stash\n"));
        Files.delete(snapshot);
        JsonNode r = w.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(r.has("result"), r.toString());
    }

    @Test
    void aSegmentChangedByHand_refusesTheWrite_isPutBack_keptAsEvidence_andOpensADriftItem() throws Exception {
        assertTrue(append("one").has("result"));
        assertTrue(append("two").has("result"));
        Path seg = activeSegment();
        String rel = root.dir.relativize(seg).toString();
        byte[] bytes = Files.readAllBytes(seg);
        String text = new String(bytes, StandardCharsets.UTF_8);
        int at = text.indexOf("\"rationale\":\"r\"");
        assertTrue(at > 0, text);
        int byteAt = text.substring(0, at).getBytes(StandardCharsets.UTF_8).length; // the tree holds non-ASCII text
        bytes[byteAt + "\"rationale\":\"".length()] = 'x';
        Files.write(seg, bytes);
        JsonNode r = append("three");
        assertTrue(r.has("error"), r.toString());
        JsonNode data = r.get("error").get("data");
        assertEquals("unavailable", data.get("reason").asText());
        assertTrue(r.get("error").get("message").asText().contains(rel), r.toString());
        assertFalse(root.git("show", "HEAD:" + rel).contains("\"rationale\":\"x\""), "nothing tampered committed");
        assertFalse(root.file(CRITIC).contains("- three\n"), "the refused write changed nothing");
        assertTrue(Files.readString(seg).startsWith(text), "memoryd's own lines are back");
        byte[] kept = Files.readAllBytes(root.dir.resolve(data.get("kept").asText()));
        assertTrue(
                new String(kept, StandardCharsets.UTF_8).contains("\"rationale\":\"x\""), "the changed copy is kept");

        assertTrue(append("three").has("result"));
        JsonNode drift = root.call("drift.list", null).get("result").get("items");
        assertTrue(
                drift.toString().contains("ledger_tampered") && drift.toString().contains(rel), drift.toString());
        assertFalse(root.git("log", "-p", "--", rel).contains("\"rationale\":\"x\""), "never committed");
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
        assertEquals(List.of(), root.git("status", "--porcelain").lines().toList());
    }
}
