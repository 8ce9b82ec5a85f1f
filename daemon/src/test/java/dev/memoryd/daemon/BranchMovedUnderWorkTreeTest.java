package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checked-out branch moved by plain git without its working tree: a push (forced or not) from
 * a clone into a root whose {@code receive.denyCurrentBranch} is {@code ignore}, or a {@code git
 * update-ref}. git leaves the files and the index as they were; a daemon child process brings the
 * files up to the new commit, as {@code updateInstead} would, and never takes the old files for a
 * human's edit that removes what was pushed. A file a human saved meanwhile gets both changes
 * where they merge, and otherwise waits in the drift queue with the human's text.
 */
class BranchMovedUnderWorkTreeTest {
    static final String NOTES = "users/sam/notes.md";
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    static final String YOUNG_NOTES = "users/sam/parts/young-one/notes.md";
    static final String NEW_NOTES = "users/sam/parts/quiet-one/notes.md";
    static final String NEW_TITLE = "Quiet One notes";
    static final String PUSHED = "A line pushed from a clone.";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp; // a failure leaves the root and daemon.log

    ServedExample served;
    Path clone;

    @BeforeEach
    void serve() throws Exception {
        served = ServedExample.start(tmp);
        served.git.ok("config", "receive.denyCurrentBranch", "ignore");
        clone = tmp.resolve("clone");
        HumanGit.in(tmp, "clone", "-q", served.cfg.root().toString(), clone.toString());
    }

    @AfterEach
    void stop() throws Exception {
        served.close();
    }

    /** Commits, in the clone, {@link #PUSHED} at the end of the notes and a new part's notes file. */
    private String commitInClone() throws Exception {
        Path notes = clone.resolve(NOTES);
        Files.writeString(notes, Files.readString(notes) + "\n" + PUSHED + "\n");
        Path extra = clone.resolve(NEW_NOTES);
        Files.createDirectories(extra.getParent());
        Files.writeString(
                extra,
                Files.readString(clone.resolve(YOUNG_NOTES))
                        .replace("young-one", "quiet-one")
                        .replace("Young One", "Quiet One")
                        .replace("01JC7X00000000000000000006", "01JC7X000000000000000000Q1"));
        assertTrue(HumanGit.in(clone, "add", NOTES, NEW_NOTES).ok());
        HumanGit.Result c = HumanGit.in(clone, "commit", "-q", "-m", "notes from the clone");
        assertTrue(c.ok(), c.toString());
        return HumanGit.in(clone, "rev-parse", "HEAD").out().strip();
    }

    private String onDisk(String path) throws IOException {
        Path f = served.cfg.root().resolve(path);
        return Files.exists(f) ? Files.readString(f) : "";
    }

    /** Polls until the working tree's {@code path} contains {@code text}, at most 15 s. */
    private void awaitOnDisk(String path, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!onDisk(path).contains(text) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        if (!onDisk(path).contains(text)) {
            throw served.root.failure(path + " in the working tree never got \"" + text + "\"; HEAD holds: "
                    + served.root.at("HEAD", path) + "\ngit log: " + served.git.ok("log", "--oneline", "-5"));
        }
    }

    private void agentWrites(String path, String section, String item) throws IOException {
        JsonNode r = served.daemon.call("write", Decl.of(Decl.appendItem(path, section, item)));
        if (!r.path("result").path("commit").isTextual()) {
            throw served.root.failure("the agent's write was not acknowledged: " + r);
        }
    }

    /** The commits that changed how often {@code text} stands in {@code path}, oldest first. */
    private List<String> commitsTouching(String path, String text) throws Exception {
        String out = served.git.ok("log", "--reverse", "--format=%s", "-S" + text, "--", path);
        return out.lines().filter(l -> !l.isBlank()).toList();
    }

    @Test
    void aPushIntoTheCheckedOutBranch_bringsTheWorkingTreeUpToIt_andKeepsWhatWasPushed() throws Exception {
        String pushed = commitInClone();
        HumanGit.Result push = HumanGit.in(clone, "push", "-q", "origin", "HEAD");
        assertTrue(push.ok(), push.toString());
        assertEquals(pushed, served.git.ok("rev-parse", "HEAD").strip(), "git moved the root's branch");

        awaitOnDisk(NOTES, PUSHED);
        awaitOnDisk(NEW_NOTES, NEW_TITLE);
        // An agent's write to the same file reads it after the push, and keeps the pushed line.
        agentWrites(NOTES, "Parking Lot", "written after the push");
        agentWrites(CRITIC, "Triggers", "another file");
        served.root.awaitMemorydFilesClean("after the push", 15_000);

        assertTrue(served.root.at("HEAD", NOTES).contains(PUSHED), "HEAD keeps the pushed line");
        assertTrue(served.root.at("HEAD", NOTES).contains("- written after the push"), "and the agent's item");
        assertTrue(onDisk(NOTES).contains(PUSHED) && onDisk(NOTES).contains("- written after the push"));
        assertEquals(
                List.of("notes from the clone"),
                commitsTouching(NOTES, PUSHED),
                "only the clone's commit changed the pushed line: none took it out again");
        assertEquals(List.of("notes from the clone"), commitsTouching(NEW_NOTES, NEW_TITLE));
        assertEquals(
                List.of(),
                served.root.humanEvents(p -> true).stream()
                        .filter(e -> !e.contains("human:" + HumanGit.NAME))
                        .toList(),
                "every human event past the import is the clone's commit, none the old files as an edit");
        served.root.assertLedgerVerifies("after the push");
    }

    @Test
    void aBranchMovedWithUpdateRef_bringsTheWorkingTreeUpToIt() throws Exception {
        String pushed = commitInClone();
        served.git.ok("fetch", "-q", clone.toString(), "HEAD");
        served.git.ok(
                "update-ref",
                "refs/heads/" + served.git.ok("symbolic-ref", "--short", "HEAD").strip(),
                pushed);
        // nothing wakes the daemon but the ref's change; a write to another file captures it
        agentWrites(CRITIC, "Triggers", "beside the moved branch");

        awaitOnDisk(NOTES, PUSHED);
        awaitOnDisk(NEW_NOTES, NEW_TITLE);
        served.root.awaitMemorydFilesClean("after update-ref", 15_000);
        assertEquals(List.of("notes from the clone"), commitsTouching(NOTES, PUSHED));
        assertEquals(List.of("notes from the clone"), commitsTouching(NEW_NOTES, NEW_TITLE));
    }

    /**
     * A push that deletes a memory file is a deletion made with git, as a {@code git rm} and commit
     * in the root is: the file leaves the working tree, as {@code updateInstead} would take it out,
     * a drift item of kind {@code deleted} waits for a maintainer while the branch keeps the
     * recorded file ({@code git status}: deleted in the working tree, nothing staged), and {@code
     * restore} puts it back. Before, the stale copy stayed on disk beside the open item, unlike a
     * deletion made in the root.
     */
    @Test
    void aPushThatDeletesAFile_leavesTheWorkingTreeAsARootsDeletionDoes_untilAMaintainerRestoresIt() throws Exception {
        String text = onDisk(YOUNG_NOTES);
        assertTrue(text.contains("Young One"), "the example's file");
        assertTrue(HumanGit.in(clone, "rm", "-q", YOUNG_NOTES).ok());
        assertTrue(HumanGit.in(clone, "commit", "-q", "-m", "the young one's notes deleted in the clone")
                .ok());
        HumanGit.Result push = HumanGit.in(clone, "push", "-q", "origin", "HEAD");
        assertTrue(push.ok(), push.toString());

        agentWrites(CRITIC, "Triggers", "after the deleting push");
        Path file = served.cfg.root().resolve(YOUNG_NOTES);
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                Files.exists(file) && System.nanoTime() < deadline; ) {
            Thread.sleep(20);
        }
        assertTrue(!Files.exists(file), "the pushed deletion reached the working tree");
        JsonNode items = served.daemon.result("drift.list", null).path("items");
        assertEquals(1, items.size(), items.toString());
        assertEquals(YOUNG_NOTES, items.get(0).path("path").asText());
        assertEquals("deleted", items.get(0).path("kind").asText(), items.toString());
        assertEquals(text, served.root.at("HEAD", YOUNG_NOTES), "the branch keeps the recorded file meanwhile");
        assertEquals(" D " + YOUNG_NOTES + "\n", served.git.ok("status", "--porcelain"), "nothing staged");

        JsonNode refused = served.daemon.call(
                "drift.resolve",
                "{\"id\":\"" + items.get(0).path("id").asText()
                        + "\",\"resolution\":\"accept_current\",\"actor\":\"human:Maintainer <m@example.org>\"}");
        assertEquals(
                "prohibited", refused.path("error").path("data").path("reason").asText(), refused::toString);
        served.daemon.result(
                "drift.resolve",
                "{\"id\":\"" + items.get(0).path("id").asText()
                        + "\",\"resolution\":\"restore\",\"actor\":\"human:Maintainer <m@example.org>\"}");
        served.root.awaitMemorydFilesClean("after the resolution", 15_000);
        assertEquals(text, served.root.at("HEAD", YOUNG_NOTES), "memory files are never deleted");
        assertEquals(text, onDisk(YOUNG_NOTES), "the maintainer restored it");
        assertEquals("", served.git.ok("status", "--porcelain"));
        assertEquals(0, served.daemon.result("drift.list", null).path("items").size());
        served.root.assertLedgerVerifies("after the deleting push");
    }

    /**
     * A forced push that took memoryd's last commit off the branch: memoryd redoes its write on top,
     * as after a reset, and the notes the push changed come up to it instead of being taken for an
     * edit that removes the pushed line.
     */
    @Test
    void aForcedPushOverMemorydsCommit_keepsTheAgentsWrite_andBringsTheNotesUp() throws Exception {
        agentWrites(CRITIC, "Triggers", "acknowledged before the forced push");
        HumanGit.in(clone, "fetch", "-q", "origin");
        assertTrue(HumanGit.in(clone, "reset", "-q", "--hard", "origin/HEAD").ok());
        assertTrue(HumanGit.in(clone, "reset", "-q", "--hard", "HEAD~1").ok(), "the clone drops memoryd's commit");
        commitInClone();
        HumanGit.Result push = HumanGit.in(clone, "push", "-q", "--force", "origin", "HEAD");
        assertTrue(push.ok(), push.toString());

        awaitOnDisk(NOTES, PUSHED);
        awaitOnDisk(NEW_NOTES, NEW_TITLE);
        agentWrites(NOTES, "Parking Lot", "after the forced push");
        served.root.awaitMemorydFilesClean("after the forced push", 15_000);
        assertTrue(served.root.at("HEAD", CRITIC).contains("- acknowledged before the forced push"), "redone on top");
        assertTrue(onDisk(CRITIC).contains("- acknowledged before the forced push"));
        assertTrue(
                served.root.at("HEAD", NOTES).contains(PUSHED) && onDisk(NOTES).contains(PUSHED));
        assertEquals(List.of("notes from the clone"), commitsTouching(NOTES, PUSHED));
        served.root.assertLedgerVerifies("after the forced push");
    }

    /**
     * Five pushes into the served branch while an agent writes another file 4 times a second: a
     * push that meets memoryd's ref lock, or its newer commits, is pulled and pushed again, as a
     * person would. Every acknowledged
     * write and every pushed line stands at HEAD and in the working tree, and no commit took a
     * pushed line out again.
     */
    @Test
    void pushesDuringAWriteStream_dropNeitherTheAgentsWritesNorThePushedLines() throws Exception {
        AgentStream s = AgentStream.start(served.daemon, CRITIC, "Triggers", "beside pushes ", 4);
        try {
            assertTrue(s.awaitAcked(5, 60_000), "the stream's writes are acknowledged");
            for (int i = 0; i < 5; i++) {
                String line = "Pushed line " + i + ".";
                assertTrue(HumanGit.in(clone, "pull", "-q", "--rebase", "origin", "HEAD")
                        .ok());
                Path notes = clone.resolve(NOTES);
                Files.writeString(notes, Files.readString(notes) + "\n" + line + "\n");
                assertTrue(HumanGit.in(clone, "commit", "-qam", "push " + i).ok());
                HumanGit.Result push = HumanGit.in(clone, "push", "-q", "origin", "HEAD");
                // A loaded machine's git takes longer than memoryd's next commit: given time, not tries.
                for (long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                        !push.ok() && System.nanoTime() < until; ) {
                    // memoryd's ref lock, or memoryd's commits since the pull: fetch, rebase, push again
                    assertTrue(HumanGit.in(clone, "pull", "-q", "--rebase", "origin", "HEAD")
                            .ok());
                    push = HumanGit.in(clone, "push", "-q", "origin", "HEAD");
                }
                assertTrue(push.ok(), push.toString());
                awaitOnDisk(NOTES, line);
                s.awaitReplies(s.replies.get() + 3, 10_000);
            }
        } finally {
            s.stop();
        }
        assertTrue(s.acked.size() > 10, "too few acknowledged writes to prove anything: " + s.acked.size());
        Map<String, String> paths = new HashMap<>();
        s.acked.keySet().forEach(i -> paths.put(i, CRITIC));
        served.root.awaitMemorydFilesClean("after the pushes", 15_000);
        served.root.assertAllPresent("after pushes during the stream", paths, s.acked);
        for (int i = 0; i < 5; i++) {
            String line = "Pushed line " + i + ".";
            assertTrue(
                    served.root.at("HEAD", NOTES).contains(line)
                            && onDisk(NOTES).contains(line),
                    line);
            assertEquals(1, commitsTouching(NOTES, line).size(), "one commit brought " + line + ", none took it out");
        }
        served.root.assertLedgerVerifies("after pushes during the stream");
    }

    /** Stops the served.daemon, lets the human save {@code edit} into the root's notes, pushes, and serves again. */
    private void pushWhileTheHumanSaved(java.util.function.UnaryOperator<String> edit) throws Exception {
        String pushed = commitInClone();
        served.stop();
        Path notes = served.cfg.root().resolve(NOTES);
        Files.writeString(notes, edit.apply(Files.readString(notes)));
        HumanGit.Result push = HumanGit.in(clone, "push", "-q", "origin", "HEAD");
        assertTrue(push.ok(), push.toString());
        assertEquals(pushed, served.git.ok("rev-parse", "HEAD").strip());
        served.serve("daemon2.log");
    }

    /**
     * The human saved the notes in the root while no daemon ran, away from where the clone's push
     * changed them: their edit is captured on top of the pushed version, both kept.
     */
    @Test
    void aFileTheHumanSavedBeforeThePush_elsewhereInIt_getsBothChanges() throws Exception {
        String item = "- a parking-lot item the human typed in the root";
        pushWhileTheHumanSaved(text -> text.replace(
                "- Family history around school grades\n", "- Family history around school grades\n" + item + "\n"));

        awaitOnDisk(NOTES, PUSHED);
        awaitOnDisk(NEW_NOTES, NEW_TITLE);
        served.root.awaitMemorydFilesClean("after the restart", 15_000);
        assertTrue(onDisk(NOTES).contains(item), "the human's edit stays in the working tree");
        assertTrue(served.root.at("HEAD", NOTES).contains(item), "and is recorded");
        assertTrue(served.root.at("HEAD", NOTES).contains(PUSHED), "beside the pushed line");
        assertEquals(List.of("notes from the clone"), commitsTouching(NOTES, PUSHED));
        List<String> human = commitsTouching(NOTES, item);
        assertEquals(1, human.size(), "one commit recorded the human's edit: " + human);
        agentWrites(NOTES, "Parking Lot", "after the restart");
        assertTrue(served.root.at("HEAD", NOTES).contains(PUSHED)
                && served.root.at("HEAD", NOTES).contains(item));
        served.root.assertLedgerVerifies("after the merge");
    }

    /**
     * The human saved the notes in the root while no daemon ran, where the clone's push changed
     * them too: neither text replaces the other unseen. The branch keeps the pushed one, the working
     * tree the human's, and a drift item waits for a maintainer, who takes the human's here; the part
     * file the push added, untouched in the root, arrives meanwhile.
     */
    @Test
    void aFileTheHumanSavedBeforeThePush_whereItChanged_waitsForAMaintainer_whileTheOthersComeUp() throws Exception {
        String edit = "A line the human typed in the root.";
        pushWhileTheHumanSaved(text -> text + "\n" + edit + "\n");

        awaitOnDisk(NEW_NOTES, NEW_TITLE);
        JsonNode items = served.daemon.result("drift.list", null).path("items");
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                items.size() == 0 && System.nanoTime() < deadline; ) {
            Thread.sleep(50);
            items = served.daemon.result("drift.list", null).path("items");
        }
        assertEquals(1, items.size(), items.toString());
        JsonNode item = items.get(0);
        assertEquals(NOTES, item.path("path").asText());
        assertEquals("overlaps_commits", item.path("kind").asText(), item.toString());
        String id = item.path("id").asText();
        assertTrue(
                served.daemon
                        .result("drift.show", "{\"id\":\"" + id + "\"}")
                        .path("text")
                        .asText()
                        .contains(edit),
                "the item holds the human's text");
        assertTrue(onDisk(NOTES).contains(edit) && !onDisk(NOTES).contains(PUSHED), "the working tree: the human's");
        assertTrue(
                served.root.at("HEAD", NOTES).contains(PUSHED)
                        && !served.root.at("HEAD", NOTES).contains(edit),
                "HEAD: pushed");
        assertEquals(List.of("notes from the clone"), commitsTouching(NOTES, PUSHED));
        agentWrites(CRITIC, "Triggers", "beside the drift item");

        served.daemon.result(
                "drift.resolve",
                "{\"id\":\"" + id
                        + "\",\"resolution\":\"accept_current\",\"actor\":\"human:Maintainer <m@example.org>\"}");
        assertTrue(served.root.at("HEAD", NOTES).contains(edit), "the maintainer took the human's text");
        assertEquals(0, served.daemon.result("drift.list", null).path("items").size());
        served.root.awaitMemorydFilesClean("after the resolution", 15_000);
        assertEquals(List.of("notes from the clone"), commitsTouching(NEW_NOTES, NEW_TITLE));
    }
}
