package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A human using plain git in the working tree a daemon child process writes to, one bug each:
 * the index in step with the branch right after every acknowledged write; {@code git commit
 * -am}, {@code add -A} and commit, {@code stash} and {@code pop} during a write stream dropping
 * nothing, with a fresh clone that verifies; a {@code reset --hard HEAD~3} during a stream and
 * the return to {@code ORIG_HEAD} losing no acknowledged write; modes of entries humans committed
 * kept; a tampered active ledger segment refused and never committed. Also measures how often a
 * human's {@code git commit -am} meets a busy lock beside 40 writes a second.
 */
class GitBesideWritesTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    static final String YOUNG = "users/sam/parts/young-one/profile.md";
    static final String TODO = HumanGit.OWN_FILE;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp; // a failure leaves the root and daemon.log

    MemorydConfig cfg;
    HumanGit git;
    DaemonProcess daemon;
    RootInvariants root;
    final List<AgentStream> streams = new ArrayList<>();

    @BeforeEach
    void init() throws Exception {
        cfg = MemorydConfig.defaults(tmp.resolve("memory"), tmp.resolve("ledger.key"));
        Memoryd.init(cfg, TestRoot.exampleTree());
        git = new HumanGit(cfg.root());
    }

    @AfterEach
    void stop() throws Exception {
        streams.forEach(AgentStream::abandon);
        if (daemon != null) {
            daemon.close();
        }
    }

    /**
     * Starts the daemon child, waits for its import of the example tree, then the human commits a
     * file of their own ({@link HumanGit#OWN_FILE}) with git, which they change before each of their
     * commits.
     */
    private void serve() throws Exception {
        daemon = DaemonProcess.start(cfg, tmp.resolve("daemon.log"));
        Files.createDirectories(tmp.resolve("clones"));
        root = new RootInvariants(daemon, tmp.resolve("clones"));
        daemon.awaitImported();
        git.editOwnFile();
        assertTrue(git.retryingLocks(50, "add", TODO).ok());
        HumanGit.Result c = git.retryingLocks(50, "commit", "-qm", "human: start a todo list");
        assertTrue(c.ok(), c.toString());
    }

    /** Stops the daemon child, so the human can shape the repository by hand with no writer beside it. */
    private void stopForHandWork() throws Exception {
        daemon.close();
        daemon = null;
    }

    /** Starts the daemon child again on the root as the human left it. */
    private void restart() throws Exception {
        daemon = DaemonProcess.start(cfg, tmp.resolve("daemon.log"));
        root = new RootInvariants(daemon, tmp.resolve("clones"));
    }

    private AgentStream stream(String path, String section, String prefix, double perSecond) {
        AgentStream s = AgentStream.start(daemon, path, section, prefix, perSecond);
        streams.add(s);
        return s;
    }

    private JsonNode write(String op) throws IOException {
        return daemon.call("write", Decl.of(op));
    }

    /** The commit of an acknowledged write; an assertion with the daemon's log when it was refused. */
    private String acked(JsonNode reply, String what) {
        JsonNode c = reply.path("result").path("commit");
        if (!c.isTextual()) {
            throw root.failure(what + " was not acknowledged: " + reply);
        }
        return c.asText();
    }

    /** The blob id a path has in the index (stage 0), or null when the index does not hold it. */
    private String indexBlob(String path) throws Exception {
        String out = git.ok("ls-files", "-s", "--", path).strip();
        return out.isEmpty() ? null : out.split("\\s+")[1];
    }

    private String blobText(String blob) throws Exception {
        return git.ok("cat-file", "blob", blob);
    }

    /**
     * The index does not lag the acknowledged commit {@code c}: every file {@code c} changed is in
     * the index at its version in {@code c} or, for a ledger segment other writes may have grown
     * since, a version that extends it.
     */
    private void assertIndexHolds(String c, String what) throws Exception {
        for (String path :
                git.ok("diff-tree", "--no-commit-id", "-r", "--name-only", c).split("\n")) {
            if (path.isBlank()) {
                continue;
            }
            String inCommit = git.ok("rev-parse", c + ":" + path).strip();
            String inIndex = indexBlob(path);
            assertNotNull(inIndex, what + ": the index does not hold " + path + " (commit " + c + ")");
            if (path.startsWith("ledger/")) {
                assertTrue(
                        blobText(inIndex).startsWith(blobText(inCommit)),
                        what + ": the index holds an older " + path + " than commit " + c);
            } else {
                assertEquals(inCommit, inIndex, what + ": the index lags commit " + c + " on " + path);
            }
        }
    }

    @Test
    void indexIsInStepRightAfterEveryAcknowledgedWrite_createEntityIncluded() throws Exception {
        serve();
        for (int i = 0; i < 8; i++) {
            String c = acked(write(Decl.appendItem(CRITIC, "Triggers", "quiet " + i)), "quiet write " + i);
            assertEquals(
                    List.of(),
                    root.memorydStatus(),
                    "git status right after the acknowledged write " + i + " (" + c + ")");
        }
        String planner = acked(write(Decl.createPart("planner")), "create_entity planner");
        assertEquals(List.of(), root.memorydStatus(), "git status right after create_entity (" + planner + ")");
        assertIndexHolds(planner, "create_entity planner");

        // With another agent streaming: the file each acknowledged write changed, and the ledger as far as
        // that write, are in the index at once; what is in flight behind it may still show.
        AgentStream other = stream(YOUNG, "Needs", "other ", 40);
        assertTrue(other.awaitAcked(5, 60_000), "the other agent's writes are acknowledged");
        for (int i = 0; i < 15; i++) {
            String c = acked(write(Decl.appendItem(CRITIC, "Triggers", "streamed " + i)), "streamed write " + i);
            List<String> dirty = git.ok("status", "--porcelain", "--untracked-files=all", "--", CRITIC)
                    .lines()
                    .toList();
            assertEquals(
                    List.of(),
                    dirty,
                    "git status right after the acknowledged write " + i + " while another agent writes (" + c + ")");
            assertIndexHolds(c, "streamed write " + i);
        }
        String scout = acked(write(Decl.createPart("scout")), "create_entity scout while another agent writes");
        List<String> dirty = git.ok("status", "--porcelain", "--untracked-files=all", "--", "users/sam/parts/scout")
                .lines()
                .toList();
        assertEquals(
                List.of(), dirty, "git status right after create_entity while another agent writes (" + scout + ")");
        assertIndexHolds(scout, "create_entity scout");
        other.stop();
        root.awaitMemorydFilesClean("after the writes", 10_000);
    }

    @Test
    void commitAllRightAfterCreateEntity_keepsTheNewFiles_andRecordsNoHumanEdit() throws Exception {
        serve();
        for (int k = 0; k < 3; k++) {
            String id = "fresh-" + k;
            acked(write(Decl.createPart(id)), "create_entity " + id);
            git.editOwnFile();
            HumanGit.Result c = git.retryingLocks(50, "commit", "-qam", "human: todo " + k);
            assertTrue(c.ok(), c.toString());
            String human = git.ok("log", "-1", "--format=%H", "--author=" + HumanGit.EMAIL)
                    .strip();
            assertEquals(
                    TODO,
                    git.ok("diff-tree", "--no-commit-id", "-r", "--name-status", human)
                            .strip()
                            .replace("M\t", ""),
                    "the human's commit -am right after create_entity " + id + " changes only their file: "
                            + git.ok("diff-tree", "--no-commit-id", "-r", "--name-status", human));
            for (String f : List.of("profile.md", "notes.md")) {
                String path = "users/sam/parts/" + id + "/" + f;
                assertNotNull(root.at("HEAD", path), path + " is at HEAD after the human's commit");
                assertTrue(Files.exists(cfg.root().resolve(path)), path + " is in the working tree");
            }
        }
        daemon.result("capture", null);
        assertEquals(
                List.of(),
                root.humanEvents(p -> true),
                "no human edit or drift recorded: the human never touched a memory file");
        assertEquals(0, daemon.result("drift.list", null).path("items").size(), "no drift item");
        root.awaitMemorydFilesClean("after the commits", 10_000);
        root.assertLedgerVerifies("after commit -am right after create_entity");
    }

    @Test
    void commitsAndStashesDuringAWriteStream_dropNothing_andAFreshCloneVerifies() throws Exception {
        serve();
        AgentStream s = stream(CRITIC, "Triggers", "stream ", 40);
        assertTrue(s.awaitAcked(5, 60_000), "the stream's writes are acknowledged");
        List<HumanGit.Result> retried = new ArrayList<>();
        for (int cycle = 0; cycle < 5; cycle++) {
            git.editOwnFile();
            HumanGit.Result c = git.retryingLocks(100, "commit", "-qam", "human: commit -am " + cycle);
            assertTrue(c.ok(), c.toString());
            s.awaitReplies(s.replies.get() + 3, 10_000);

            git.editOwnFile();
            HumanGit.Result add = git.retryingLocks(100, "add", "-A");
            assertTrue(add.ok(), add.toString());
            HumanGit.Result commit = git.retryingLocks(100, "commit", "-qm", "human: add -A and commit " + cycle);
            assertTrue(commit.ok(), commit.toString());
            s.awaitReplies(s.replies.get() + 3, 10_000);

            git.editOwnFile();
            String mine = Files.readString(cfg.root().resolve(TODO));
            HumanGit.Result stash = git.stash(100);
            assertTrue(stash.ok(), "git stash during the stream: " + stash);
            s.awaitReplies(s.replies.get() + 3, 10_000);
            HumanGit.Result pop = git.retryingLocks(100, "stash", "pop");
            assertTrue(pop.ok(), "stash pop of the human's own change: " + pop + "\n" + daemon.logTail(40));
            assertEquals(
                    mine, Files.readString(cfg.root().resolve(TODO)), "the human's change is back after stash pop");
            s.awaitReplies(s.replies.get() + 3, 10_000);
        }
        s.stop();
        assertTrue(s.acked.size() > 20, "too few acknowledged writes to prove anything: " + s.acked.size());
        Map<String, String> paths = new HashMap<>();
        s.acked.keySet().forEach(i -> paths.put(i, CRITIC));
        root.assertAllPresent("after commits and stashes during the stream", paths, s.acked);
        for (String c :
                git.ok("log", "--format=%H", "--author=" + HumanGit.EMAIL).split("\n")) {
            Set<String> touched = new TreeSet<>(git.ok("diff-tree", "--no-commit-id", "-r", "--name-only", c)
                    .lines()
                    .toList());
            assertEquals(Set.of(TODO), touched, "the human's commit " + c + " changes only their own file");
        }
        root.awaitMemorydFilesClean("after the stream", 10_000);
        assertEquals(
                List.of(),
                root.humanEvents(p -> true),
                "no human edit or drift recorded: the human never touched a memory file");
        assertEquals(0, daemon.result("drift.list", null).path("items").size(), "no drift item");
        root.assertLedgerVerifies("after commits and stashes during the stream");
        root.assertFsck("after commits and stashes during the stream");

        daemon.close();
        daemon = DaemonProcess.start(cfg, tmp.resolve("daemon.log"));
        root = new RootInvariants(daemon, tmp.resolve("clones"));
        root.assertLedgerVerifies("after a restart");
        root.assertAllPresent("after a restart", paths, s.acked);
        acked(write(Decl.appendItem(CRITIC, "Triggers", "after restart")), "a write after the restart");
    }

    @Test
    void resetHardThreeBackDuringAStream_andBackToOrigHead_losesNoAcknowledgedWrite() throws Exception {
        serve();
        Map<String, String> paths = new HashMap<>();
        Map<String, String> commits = new HashMap<>();
        List<String> outcomes = new ArrayList<>();
        for (int trial = 0; trial < 4; trial++) {
            AgentStream s = stream(CRITIC, "Triggers", "reset " + trial + " item ", 40);
            assertTrue(
                    s.awaitAcked(8, 60_000),
                    "trial " + trial + ": the stream's writes are acknowledged (after " + outcomes + "); refusals: "
                            + s.refusalSample);
            HumanGit.Result back = git.run("reset", "-q", "--hard", "HEAD~3");
            for (int i = 0; back.lockBusy() && !back.refLockFailed() && i < 100; i++) {
                back = git.run("reset", "-q", "--hard", "HEAD~3"); // it never started: run it again
            }
            s.awaitReplies(s.replies.get() + 3, 10_000);
            HumanGit.Result ret = git.retryingLocks(100, "reset", "-q", "--hard", "ORIG_HEAD");
            assertTrue(ret.ok(), ret.toString());
            s.awaitReplies(s.replies.get() + 3, 10_000);
            s.stop();
            outcomes.add(
                    back.ok()
                            ? "moved"
                            : back.refLockFailed()
                                    ? "ref move failed"
                                    : back.lockBusy() ? "index busy" : back.toString());
            s.acked.forEach((i, c) -> {
                paths.put(i, CRITIC);
                commits.put(i, c);
            });
            settle("trial " + trial + " (" + outcomes + ")", paths, commits);
        }
        System.out.println("reset --hard HEAD~3 during a stream: " + outcomes);
        root.assertAllPresent("after reset --hard HEAD~3 and back to ORIG_HEAD " + outcomes, paths, commits);
        assertEquals(
                List.of(),
                root.humanEvents(p -> true),
                "the working trees git rewrote are repaired from the branch, not recorded as human edits " + outcomes);
        root.awaitMemorydFilesClean("after the resets", 10_000);
        root.assertLedgerVerifies("after reset --hard HEAD~3 and back " + outcomes);
        root.assertFsck("after the resets");

        daemon.close();
        daemon = DaemonProcess.start(cfg, tmp.resolve("daemon.log"));
        root = new RootInvariants(daemon, tmp.resolve("clones"));
        root.assertLedgerVerifies("after a restart");
        root.assertAllPresent("after a restart", paths, commits);
    }

    /**
     * Writes a probe item until one is acknowledged (and adds it to {@code paths} and {@code
     * commits}). A refusal naming the commit the branch must move back to ({@code unavailable} with
     * {@code data.recorded_commit}) is followed as the error tells a human to: {@code git reset
     * --hard} to it.
     */
    private void settle(String what, Map<String, String> paths, Map<String, String> commits) throws Exception {
        for (int i = 0; i < 5; i++) {
            String item = "probe " + commits.size() + " " + i;
            JsonNode r = write(Decl.appendItem(CRITIC, "Triggers", item));
            if (r.path("result").path("commit").isTextual()) {
                paths.put(item, CRITIC);
                commits.put(item, r.path("result").path("commit").asText());
                return;
            }
            String to = r.path("error").path("data").path("recorded_commit").asText("");
            if (to.isEmpty()) {
                throw root.failure(what + ": writes do not resume once the human is back: " + r);
            }
            HumanGit.Result back = git.retryingLocks(100, "reset", "-q", "--hard", to);
            assertTrue(back.ok(), back.toString());
        }
        throw root.failure(what + ": writes do not resume after 5 probes");
    }

    @Test
    void modesHumansCommitted_executableAndSymlink_areKept() throws Exception {
        serve();
        Path run = cfg.root().resolve("tools/run.sh");
        Path deep = cfg.root().resolve("tools/deep/check.sh");
        Files.createDirectories(deep.getParent());
        Files.writeString(run, "#!/bin/sh\necho run\n");
        Files.writeString(deep, "#!/bin/sh\necho check\n");
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(deep, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createSymbolicLink(cfg.root().resolve("overview-link.md"), Path.of("users/sam/overview.md"));
        assertTrue(git.retryingLocks(50, "add", "tools", "overview-link.md").ok());
        HumanGit.Result c = git.retryingLocks(50, "commit", "-qm", "human: scripts and a link");
        assertTrue(c.ok(), c.toString());
        Map<String, String> modes =
                Map.of("tools/run.sh", "100755", "tools/deep/check.sh", "100755", "overview-link.md", "120000");
        assertEquals(modes, modesAt("HEAD", modes.keySet()), "the human's commit");

        acked(write(Decl.appendItem(CRITIC, "Triggers", "after the scripts")), "a write");
        acked(write(Decl.createPart("tooling")), "create_entity");
        acked(write(Decl.appendItem(YOUNG, "Needs", "after the link")), "a write");
        assertEquals(
                modes,
                modesAt("HEAD", modes.keySet()),
                "memoryd's commits keep the modes the human committed: " + git.ok("log", "--oneline", "-4"));
        root.awaitMemorydFilesClean("after the writes", 10_000);
        assertEquals("", git.ok("status", "--porcelain").strip(), "git status after memoryd's commits");
        root.assertLedgerVerifies("after the writes");
    }

    /**
     * A human replaces the root's {@code .gitignore} with one of their own (here: none) and then
     * commits everything with {@code git add -A}: memoryd's state directory (its ledger journal, its
     * lock, spare files holding copies of memory files) stays out of the commit, since memoryd keeps
     * it in the repository's local exclude file too, and {@code git status} stays clean as memoryd
     * writes on. Before, the commit took {@code .memoryd/} in, and every write left it changed.
     */
    @Test
    void aHumansAddAllWithoutTheGitignore_takesNoneOfMemorydsStateIn() throws Exception {
        serve();
        acked(write(Decl.appendItem(CRITIC, "Triggers", "before the ignore file goes")), "a write");
        assertTrue(git.retryingLocks(50, "rm", "-q", ".gitignore").ok());
        HumanGit.Result c = git.retryingLocks(50, "commit", "-qm", "human: my own ignore rules, later");
        assertTrue(c.ok(), c.toString());
        acked(write(Decl.appendItem(CRITIC, "Triggers", "after the ignore file went")), "a write");
        assertTrue(git.retryingLocks(50, "add", "-A").ok());
        git.retryingLocks(50, "commit", "-qm", "human: everything"); // nothing to commit, when all is well
        String tracked = git.ok("ls-files");
        assertTrue(!tracked.contains(".memoryd"), "memoryd's state was committed: " + tracked);
        acked(write(Decl.appendItem(YOUNG, "Needs", "after the human's add -A")), "a write");
        root.awaitMemorydFilesClean("after the writes", 10_000);
        assertEquals("", git.ok("status", "--porcelain").strip(), "git status after memoryd's writes");
        root.assertLedgerVerifies("after the writes");
    }

    private Map<String, String> modesAt(String rev, Set<String> paths) throws Exception {
        Map<String, String> m = new HashMap<>();
        for (String p : paths) {
            String line = git.ok("ls-tree", rev, "--", p).strip();
            m.put(p, line.isEmpty() ? "absent" : line.split("\\s+")[0]);
        }
        return m;
    }

    @Test
    void tamperedActiveSegment_refusesTheWrite_opensDrift_andNothingTamperedIsCommitted() throws Exception {
        serve();
        for (int i = 0; i < 3; i++) {
            acked(write(Decl.appendItem(CRITIC, "Triggers", "before tampering " + i)), "write " + i);
        }
        root.awaitMemorydFilesClean("before tampering", 10_000);
        String segment = "ledger/main/0000/00000000.ndjson";
        Path file = cfg.root().resolve(segment);
        List<String> lines = Files.readAllLines(file);
        assertTrue(
                lines.size() > TestRoot.IMPORT_LINES && lines.size() < 32,
                "the first segment is the active one: " + lines.size() + " lines");
        // Flip one bit of the year of line 2's timestamp: still JSON, no longer what was signed.
        String original = lines.get(1);
        int at = original.indexOf("\"ts\":\"") + 6;
        String tampered = original.substring(0, at) + (char) (original.charAt(at) ^ 1) + original.substring(at + 1);
        lines.set(1, tampered);
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        String headBefore = git.ok("rev-parse", "HEAD").strip();

        JsonNode r = write(Decl.appendItem(CRITIC, "Triggers", "after tampering"));
        JsonNode drift = daemon.result("drift.list", null).path("items");
        assertTrue(drift.size() > 0, "a drift item is open: " + drift);
        if (r.has("error")) {
            String message = r.path("error").path("message").asText();
            assertTrue(
                    message.contains(segment) && (message.contains("line 2") || message.contains("seq 2")),
                    "the refusal names the segment and the line: " + r);
            assertFalse(
                    "internal"
                            .equals(r.path("error").path("data").path("reason").asText()),
                    "a precise reason: " + r);
            assertFalse(root.at("HEAD", CRITIC).contains("- after tampering\n"), "the refused item is not at HEAD");
        } else {
            // The watcher met the changed segment first: its capture put the chain's lines back and
            // opened the drift item, and the write after it appended to the lines memoryd wrote.
            assertTrue(r.path("result").path("commit").isTextual(), "acknowledged: " + r);
            assertTrue(
                    drift.toString().contains(segment.replace('/', '_'))
                            || drift.toString().contains(segment),
                    "the drift item names the segment: " + drift);
        }

        for (String c : git.ok("rev-list", "--all").split("\n")) {
            HumanGit.Result blob = git.run("show", c + ":" + segment);
            assertFalse(blob.ok() && blob.out().contains(tampered), "commit " + c + " holds the tampered line");
        }
        assertTrue(git.ok("rev-list", "HEAD").contains(headBefore), "the branch still holds every earlier commit");
        Path clone = tmp.resolve("clones/tamper");
        assertTrue(HumanGit.in(tmp, "clone", "-q", cfg.root().toString(), clone.toString())
                .ok());
        assertEquals(null, RootInvariants.verifyWithCli(clone, cfg.keyFile()), "a fresh clone verifies");
    }

    /**
     * A {@code git stash} taken in git's unlocked moment can hold a ledger line the branch then
     * gets differently, and its {@code pop} conflicts in the segment: memoryd puts its lines back,
     * and the index must not keep the conflict's stages for good ({@code UU} in every later
     * {@code git status}, as the chaos soak met it).
     */
    @Test
    void aStashPopThatConflictsInTheLedger_leavesNoConflictOnceMemorydPutsItsLinesBack() throws Exception {
        serve();
        acked(write(Decl.appendItem(CRITIC, "Triggers", "before the stash")), "write before the stash");
        root.awaitMemorydFilesClean("before the stash", 10_000);
        stopForHandWork(); // the stash is made by hand, with no writer beside it
        String segment = "ledger/main/0000/00000000.ndjson";
        Path file = cfg.root().resolve(segment);
        Files.writeString(
                file, "{\"a line the branch never gets\":true}\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        git.editOwnFile();
        assertTrue(git.ok("stash", "list").isEmpty());
        git.ok("stash");
        restart();
        acked(write(Decl.appendItem(CRITIC, "Triggers", "after the stash")), "write after the stash");
        HumanGit.Result pop = git.run("stash", "pop");
        assertFalse(pop.ok(), "the pop conflicts in the segment: " + pop);
        // From git's own report: memoryd may already be putting its lines back by the time a status runs.
        assertEquals(List.of(segment), HumanGit.conflictedPaths(pop), pop::toString);

        write(Decl.appendItem(CRITIC, "Triggers", "after the pop"));
        root.awaitMemorydFilesClean("after the pop", 15_000);
        assertFalse(git.ok("status", "--porcelain").contains("UU "), git.ok("status", "--porcelain"));
        assertTrue(root.at("HEAD", CRITIC).contains("- after the stash\n"), "the acknowledged write is at HEAD");
        assertTrue(daemon.result("ledger.verify", null).path("ok").asBoolean());
    }

    /**
     * Two acknowledged writes, then, with the daemon stopped (as git's unlocked moment would
     * leave it), a stash of the human's own change and of {@code segment} as it was one write
     * earlier; the daemon is serving again on return.
     */
    private void stashAnOlderVersionOf(String segment) throws Exception {
        serve();
        acked(write(Decl.appendItem(CRITIC, "Triggers", "first")), "first write");
        acked(write(Decl.appendItem(CRITIC, "Triggers", "second")), "second write");
        root.awaitMemorydFilesClean("before the stash", 10_000);
        stopForHandWork();
        Files.writeString(cfg.root().resolve(segment), git.ok("show", "HEAD~1:" + segment), StandardCharsets.UTF_8);
        git.editOwnFile();
        git.ok("stash");
        restart();
    }

    /**
     * The same gap when the stash holds an older version of the active ledger segment (its
     * snapshot was taken while a git command had the segment rolled back): the pop conflicts
     * between two versions memoryd wrote. The markers are git's, not tampering: memoryd puts its
     * lines back, the next write is acknowledged at once, and no drift item is opened.
     */
    @Test
    void aStashPopThatConflictsInTheActiveSegment_betweenMemorydsOwnVersions_isNotTampering() throws Exception {
        String segment = "ledger/main/0000/00000000.ndjson";
        stashAnOlderVersionOf(segment);
        acked(write(Decl.appendItem(CRITIC, "Triggers", "third")), "third write");
        HumanGit.Result pop = git.run("stash", "pop");
        assertFalse(pop.ok(), "the pop conflicts: " + pop);
        assertEquals(List.of(segment), HumanGit.conflictedPaths(pop), pop::toString);

        acked(write(Decl.appendItem(CRITIC, "Triggers", "after the pop")), "the first write after the pop");
        root.awaitMemorydFilesClean("after the pop", 15_000);
        assertEquals(0, daemon.result("drift.list", null).path("items").size(), "no drift item");
        assertFalse(git.ok("status", "--porcelain").contains("UU "), git.ok("status", "--porcelain"));
        String head = root.at("HEAD", CRITIC);
        for (String item : List.of("first", "second", "third", "after the pop")) {
            assertTrue(head.contains("- " + item + "\n"), item + " at HEAD: " + head);
        }
        assertFalse(Files.readString(cfg.root().resolve(segment)).contains("<<<<<<<"), "no conflict marker");
        assertTrue(Files.readString(cfg.root().resolve(TODO)).contains("- todo"), "the human's own change is back");
        assertTrue(daemon.result("ledger.verify", null).path("ok").asBoolean());
    }

    /**
     * The same gap in a segment that is full by the time of the pop: the stash holds an older
     * version of it, memoryd fills it and goes on in the next one, and the pop conflicts in a
     * segment no batch appends to again. Once writes pause memoryd puts its lines back there too,
     * so neither git's markers nor {@code UU} stay.
     */
    @Test
    void aStashPopThatConflictsInAFullSegment_betweenMemorydsOwnVersions_isPutBackOnceWritesPause() throws Exception {
        String full = "ledger/main/0000/00000000.ndjson";
        Path next = cfg.root().resolve("ledger/main/0000/00000001.ndjson");
        stashAnOlderVersionOf(full);
        for (int i = 0; !Files.exists(next); i++) {
            assertTrue(i < 400, "the first segment never filled");
            acked(write(Decl.appendItem(CRITIC, "Triggers", "filling " + i)), "filling write " + i);
        }
        HumanGit.Result pop = git.run("stash", "pop");
        assertFalse(pop.ok(), "the pop conflicts: " + pop);
        assertEquals(List.of(full), HumanGit.conflictedPaths(pop), pop::toString);

        acked(write(Decl.appendItem(CRITIC, "Triggers", "after the pop")), "the write after the pop");
        root.awaitMemorydFilesClean("after the pop", 15_000);
        assertFalse(git.ok("status", "--porcelain").contains("UU "), git.ok("status", "--porcelain"));
        assertEquals(
                git.ok("show", "HEAD:" + full),
                Files.readString(cfg.root().resolve(full)),
                "the segment is the branch's");
        assertEquals(0, daemon.result("drift.list", null).path("items").size(), "no drift item");
        assertTrue(Files.readString(cfg.root().resolve(TODO)).contains("- todo"), "the human's own change is back");
        assertTrue(daemon.result("ledger.verify", null).path("ok").asBoolean());
    }

    /**
     * The same gap with an agent's file in the stash: the stash's parent is the branch before
     * memoryd's write and its snapshot holds that write, so its pop conflicts in the agent's file
     * with memoryd's later one. The conflict markers are git's: memoryd puts its text back, records
     * no human edit of the agent's file, and the index is left merged.
     */
    @Test
    void aStashPopThatConflictsInAnAgentsFile_withMemorydsOwnOlderText_isNotAHumanEdit() throws Exception {
        serve();
        String c1 = acked(write(Decl.appendItem(CRITIC, "Triggers", "first")), "first write");
        acked(write(Decl.appendItem(CRITIC, "Triggers", "second")), "second write");
        root.awaitMemorydFilesClean("before the stash", 10_000);
        stopForHandWork(); // the stash is made by hand, as git's unlocked moment would make it
        String c2 = git.ok("rev-parse", "HEAD").strip();
        git.ok("reset", "-q", "--soft", c1); // the stash's parent: the branch before the second write
        git.editOwnFile();
        git.ok("stash");
        git.ok("reset", "-q", "--hard", c2); // and the branch as memoryd left it
        restart();
        acked(write(Decl.appendItem(CRITIC, "Triggers", "third")), "third write");
        HumanGit.Result pop = git.run("stash", "pop");
        assertFalse(pop.ok(), "the pop conflicts: " + pop);
        assertTrue(git.ok("status", "--porcelain").contains("UU " + CRITIC), git.ok("status", "--porcelain"));

        // The pop conflicted in the ledger segment too, between two versions memoryd wrote: its lines
        // are put back and the write goes on.
        acked(write(Decl.appendItem(CRITIC, "Triggers", "after the pop")), "write after the pop");
        assertEquals(0, daemon.result("drift.list", null).path("items").size(), "no drift item");
        root.awaitMemorydFilesClean("after the pop", 15_000);
        String head = root.at("HEAD", CRITIC);
        for (String item : List.of("first", "second", "third", "after the pop")) {
            assertTrue(head.contains("- " + item + "\n"), item + " at HEAD: " + head);
        }
        assertFalse(head.contains("<<<<<<<") || head.contains(">>>>>>>"), "no conflict marker at HEAD: " + head);
        assertEquals(List.of(), root.humanEvents(p -> p.equals(CRITIC)), "no human edit of the agent's file");
        assertTrue(Files.readString(cfg.root().resolve(TODO)).contains("- todo"), "the human's own change is back");
        assertTrue(daemon.result("ledger.verify", null).path("ok").asBoolean());
    }

    /**
     * A plain {@code git commit} that read the index just before memoryd recorded a write there,
     * and then failed on the ref memoryd moved, has already written the index it read back: the
     * write's entries are gone from the index though its files and commit are in place. memoryd
     * sees the index written by someone else at its next batch and records its files again, so the
     * human's next {@code git commit} takes no agent's write back and records no human edit.
     */
    @Test
    void anIndexAFailedCommitWroteBack_isRepairedAtTheNextBatch_soTheHumansRetryTakesNoWriteBack() throws Exception {
        serveThenWriteBackTheIndexBeforeYoungTwo();
        acked(write(Decl.appendItem(CRITIC, "Triggers", "critic two")), "critic two");

        String human = commitOwnFile();
        assertEquals(
                "M\t" + TODO,
                git.ok("diff-tree", "--no-commit-id", "-r", "--name-status", human)
                        .strip(),
                "the human's commit changes only their file");
        assertTrue(root.at("HEAD", YOUNG).contains("- young two\n"), root.at("HEAD", YOUNG));
        daemon.result("capture", null);
        assertEquals(List.of(), root.humanEvents(p -> true), "no human edit recorded");
        root.awaitMemorydFilesClean("after the human's commit", 10_000);
    }

    /**
     * The same index written back while no agent writes: memoryd, woken by the index's change,
     * records its entries again on its own, so {@code git status} shows nothing of memoryd's and a
     * commit made a while later takes nothing back.
     */
    @Test
    void anIndexAFailedCommitWroteBack_isRepairedWhileWritesPause() throws Exception {
        serveThenWriteBackTheIndexBeforeYoungTwo();
        assertTrue(
                git.ok("status", "--porcelain").contains(YOUNG),
                "the index written back lacks the write: " + git.ok("status", "--porcelain"));

        root.awaitMemorydFilesClean("after the index was written back", 10_000);
        assertEquals(git.ok("rev-parse", "HEAD:" + YOUNG).strip(), indexBlob(YOUNG));
        commitOwnFile();
        assertTrue(root.at("HEAD", YOUNG).contains("- young two\n"), root.at("HEAD", YOUNG));
        daemon.result("capture", null);
        assertEquals(List.of(), root.humanEvents(p -> true), "no human edit recorded");
    }

    /**
     * The same index, and the human's retry made before memoryd's next batch: their commit takes
     * the agent's write back out of a file whose working copy still holds it. What the human
     * committed is not what they had: memoryd records the working copy again on top (the write is
     * at the branch head once more), and {@code git status} ends clean.
     */
    @Test
    void aCommitOfAnIndexAFailedCommitWroteBack_takesNoAcknowledgedWriteOffTheBranch() throws Exception {
        commitAnIndexWrittenBack(false);
    }

    /** As above, with the human's commit captured in a batch of its own before the agent's next write. */
    @Test
    void aCommitOfAnIndexAFailedCommitWroteBack_capturedFirst_takesNoAcknowledgedWriteOffTheBranch() throws Exception {
        commitAnIndexWrittenBack(true);
    }

    /**
     * The same commit, and no agent writes after it: memoryd commits its text again on its own
     * once the commit is captured, so the branch holds every acknowledged write, {@code replay
     * --verify} matches and {@code git status} is clean without waiting for the next write (until
     * then the agent's item showed as the human's uncommitted change, one {@code git checkout --}
     * away from being discarded).
     */
    @Test
    void aCommitOfAnIndexAFailedCommitWroteBack_isPutBackWhileWritesPause() throws Exception {
        serveThenWriteBackTheIndexBeforeYoungTwo();
        HumanGit.Result c = git.run("commit", "-qm", "human: the retry");
        assertTrue(c.ok(), c.toString());
        // Found by its message: memoryd's put-back can land before a look at HEAD.
        String humans = git.ok("log", "-1", "--format=%H", "--fixed-strings", "--grep=human: the retry")
                .strip();
        daemon.result("capture", null);

        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!root.at("HEAD", YOUNG).contains("- young two\n") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(
                root.at("HEAD", YOUNG).contains("- young two\n"),
                "put back without a write: " + root.at("HEAD", YOUNG));
        assertEquals(
                humans,
                git.ok("rev-parse", "HEAD~1").strip(),
                "one commit on top of the human's: " + git.ok("log", "--format=%h %p %s", "-4"));
        assertTrue(
                git.ok("log", "-1", "--format=%s").startsWith("memoryd: put back"), git.ok("log", "-1", "--format=%B"));
        List<String> changed = git.ok("diff-tree", "--no-commit-id", "-r", "--name-only", "HEAD")
                .lines()
                .toList();
        assertTrue(
                changed.contains(YOUNG)
                        && changed.stream().allMatch(p -> p.equals(YOUNG) || p.startsWith("ledger/main/")),
                "it changes only what the human's commit took out: the agent's file and its ledger line: " + changed);
        root.awaitMemorydFilesClean("after the put-back", 10_000);
        assertEquals(git.ok("rev-parse", "HEAD:" + YOUNG).strip(), indexBlob(YOUNG));
        assertTrue(daemon.result("ledger.verify", null).path("ok").asBoolean());
        assertEquals(List.of(), root.humanEvents(p -> p.equals(YOUNG)));
        JsonNode replay = daemon.result("replay", "{\"verify\":true}");
        assertTrue(replay.path("ok").asBoolean(), "replay --verify matches the branch: " + replay);

        // A restart finds the put-back commit (no trailer) after memoryd's last recorded one, and
        // takes it for what it is: the recorded text, so nothing to capture and nothing to redo.
        String putBack = git.ok("rev-parse", "HEAD").strip();
        stopForHandWork();
        restart();
        daemon.result("capture", null);
        assertEquals(putBack, git.ok("rev-parse", "HEAD").strip(), "nothing committed at the start");
        assertEquals(List.of(), root.humanEvents(p -> p.equals(YOUNG)));
        root.awaitMemorydFilesClean("after a restart", 10_000);

        acked(write(Decl.appendItem(YOUNG, "Needs", "young three")), "writes go on");
        assertTrue(root.at("HEAD", YOUNG).contains("- young two\n- young three\n"), root.at("HEAD", YOUNG));
    }

    private void commitAnIndexWrittenBack(boolean captureFirst) throws Exception {
        serveThenWriteBackTheIndexBeforeYoungTwo();
        HumanGit.Result c = git.run("commit", "-qm", "human: the retry");
        assertTrue(c.ok(), c.toString());
        // Found by its message: memoryd's put-back can land before a look at HEAD.
        String humans = git.ok("log", "-1", "--format=%H", "--fixed-strings", "--grep=human: the retry")
                .strip();
        assertFalse(root.at(humans, YOUNG).contains("- young two\n"), "the human's commit took the write out");
        if (captureFirst) {
            // The commit alone, as the watcher captures a moved branch: the agent's file is not read.
            // The watcher may have captured it already, and with writes pausing memoryd may have put
            // the agent's text back since (see the test below): until that put-back, no commit of
            // memoryd's holds it (recording the commit may take none: it is no edit of the human's).
            daemon.result("capture", "{\"paths\":[\"users/sam/overview.md\"]}");
            List<String> since = git.ok("log", "--reverse", "--format=%H %s", humans + "..HEAD")
                    .lines()
                    .toList();
            for (String commit : since) {
                if (commit.substring(41).startsWith("memoryd: put back")) {
                    break;
                }
                assertFalse(
                        root.at(commit.substring(0, 40), YOUNG).contains("- young two\n"),
                        "only the commit was captured: " + commit);
            }
        }

        acked(write(Decl.appendItem(YOUNG, "Needs", "young three")), "a write after the commit");
        root.awaitMemorydFilesClean("after the human's commit", 10_000);
        assertTrue(root.at("HEAD", YOUNG).contains("- young two\n"), root.at("HEAD", YOUNG));
        assertTrue(root.at("HEAD", YOUNG).contains("- young three\n"), root.at("HEAD", YOUNG));
        assertTrue(Files.readString(cfg.root().resolve(YOUNG)).contains("- young two\n"));
        assertTrue(daemon.result("ledger.verify", null).path("ok").asBoolean());
        // The human never saw the older text: git made their commit from an index it read before
        // memoryd's write. No edit of theirs is recorded on the agent's file, neither the taking
        // out nor the putting back.
        assertEquals(List.of(), root.humanEvents(p -> p.equals(YOUNG)));
    }

    /**
     * Serves, acknowledges "young one" and then "young two", and puts back the index as it was
     * before "young two", as a {@code git commit} that read it then and failed on the ref does.
     */
    private void serveThenWriteBackTheIndexBeforeYoungTwo() throws Exception {
        serve();
        acked(write(Decl.appendItem(YOUNG, "Needs", "young one")), "young one");
        root.awaitMemorydFilesClean("before", 10_000);
        byte[] read = Files.readAllBytes(cfg.root().resolve(".git/index"));
        acked(write(Decl.appendItem(YOUNG, "Needs", "young two")), "young two");
        root.awaitMemorydFilesClean("after young two", 10_000);
        writeBackIndex(read);
    }

    /** The human changes their own file, stages it and commits; the id of their commit. */
    private String commitOwnFile() throws Exception {
        git.editOwnFile();
        assertTrue(git.retryingLocks(50, "add", TODO).ok());
        HumanGit.Result c = git.retryingLocks(50, "commit", "-qm", "human: todo");
        assertTrue(c.ok(), c.toString());
        return git.ok("log", "-1", "--format=%H", "--author=" + HumanGit.EMAIL).strip();
    }

    /** Writes {@code bytes} as the index the way git does: a lock file renamed over it. */
    private void writeBackIndex(byte[] bytes) throws IOException {
        Path lock = cfg.root().resolve(".git/index.lock");
        Files.write(lock, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        Files.move(lock, cfg.root().resolve(".git/index"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * {@code git clean -fdx} while the daemon serves removes its state directory, and the socket
     * and lock file with it. The daemon keeps the root: a second {@code serve} is refused naming
     * the first's pid, the socket is bound again within seconds, and writes go on. Before, the
     * second {@code serve} took a new lock file and started beside the first: two writers on one
     * root, the second already reporting the first's ledger lines as tampered.
     */
    @Test
    void gitCleanOfTheStateDirectory_neverLetsASecondDaemonIn_andTheSocketIsBoundAgain() throws Exception {
        serve();
        acked(write(Decl.appendItem(YOUNG, "Needs", "before the clean")), "before the clean");
        git.ok("clean", "-fdxq");
        assertFalse(Files.exists(cfg.stateDir()), "git clean removed the state directory");

        Process second = new ProcessBuilder(DaemonProcess.serveCommand(cfg.root(), cfg.keyFile()))
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("second.log").toFile())
                .start();
        try {
            assertTrue(
                    second.waitFor(60, java.util.concurrent.TimeUnit.SECONDS),
                    "a second daemon started beside the first: " + Files.readString(tmp.resolve("second.log")));
        } finally {
            second.destroyForcibly();
        }
        String said = Files.readString(tmp.resolve("second.log"));
        assertTrue(second.exitValue() != 0, said);
        assertTrue(
                said.contains("already serving")
                        && said.contains("pid " + daemon.process().pid()),
                "refused naming the daemon that serves: " + said);
        assertTrue(daemon.isAlive());

        JsonNode w = null;
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (w == null) {
            try {
                w = write(Decl.appendItem(YOUNG, "Needs", "after the clean"));
            } catch (IOException notYet) {
                assertTrue(System.nanoTime() < deadline, "the socket was not bound again: " + daemon.logTail(20));
                Thread.sleep(100);
            }
        }
        acked(w, "after the clean");
        assertTrue(Files.isDirectory(cfg.stateDir()), "the state directory is back");
        root.awaitMemorydFilesClean("after the clean", 10_000);
        assertTrue(root.at("HEAD", YOUNG).contains("- before the clean\n- after the clean\n"), root.at("HEAD", YOUNG));
        root.assertLedgerVerifies("after the clean");
    }

    /**
     * A human's {@code git commit -am} beside two agents writing 40 declarations a second fails, if
     * at all, only as beside another git process: on a busy lock, changing nothing, and it succeeds
     * when run again. The rate is printed here; it is measured as a benchmark (docs/BENCHMARKS.md),
     * since a timed bound in a test only measures how busy the machine is.
     */
    @Test
    void commitAllBesideFortyWritesPerSecond_failsOnlyOnABusyLock_andSucceedsWhenRunAgain() throws Exception {
        serve();
        AgentStream a = stream(CRITIC, "Triggers", "rate a ", 20);
        AgentStream b = stream(YOUNG, "Needs", "rate b ", 20);
        assertTrue(a.awaitAcked(5, 60_000) && b.awaitAcked(5, 60_000), "the agents' writes are acknowledged");
        int attempts = 100;
        int busy = 0;
        List<HumanGit.Result> other = new ArrayList<>();
        List<String> busySamples = new ArrayList<>();
        int repliesBefore = a.replies.get() + b.replies.get();
        long t0 = System.nanoTime();
        for (int i = 0; i < attempts; i++) {
            git.editOwnFile();
            HumanGit.Result c = git.run("commit", "-qam", "human: measured commit " + i);
            if (c.lockBusy()) {
                busy++;
                if (busySamples.size() < 3) {
                    busySamples.add(c.out().strip());
                }
            } else if (!c.ok()) {
                other.add(c);
            }
            Thread.sleep(20); // a human's pace, not a tight loop
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        int replies = a.replies.get() + b.replies.get() - repliesBefore;
        a.stop();
        b.stop();
        double rate = 100.0 * busy / attempts;
        System.out.printf(
                "git commit -am beside %.1f writes/s: %d of %d failed on a busy lock (%.1f %%); goal < 1 %%; "
                        + "samples: %s%n",
                replies / seconds, busy, attempts, rate, busySamples);
        assertEquals(List.of(), other, "commit -am failed for another reason than a busy lock");
        git.editOwnFile();
        assertTrue(
                git.retryingLocks(100, "commit", "-qam", "human: after the stream")
                        .ok(),
                "run again, it succeeds");
        root.awaitMemorydFilesClean("after the stream", 10_000);
    }

    @Test
    void gitGcBesideAWriteStream_neverMeetsAPackTheRollUpRemoved_andTheRepositoryStaysWhole() throws Exception {
        serve();
        AgentStream a = stream(CRITIC, "Triggers", "gc a ", 20);
        AgentStream b = stream(YOUNG, "Needs", "gc b ", 20);
        assertTrue(a.awaitAcked(5, 60_000) && b.awaitAcked(5, 60_000), "the agents' writes are acknowledged");
        List<HumanGit.Result> failed = new ArrayList<>();
        int ran = 0;
        int busy = 0;
        for (int i = 0; i < 12; i++) {
            HumanGit.Result r = git.run("gc", "-q");
            ran++;
            if (r.lockBusy()) {
                busy++; // a lock held for a moment, as beside any other git process: run it again
            } else if (!r.ok()) {
                failed.add(r);
            }
            Thread.sleep(50);
        }
        a.stop();
        b.stop();
        System.out.printf("git gc beside a write stream: %d runs, %d met a lock%n", ran, busy);
        assertEquals(List.of(), failed, "git gc failed beside memoryd's pack roll-ups");
        assertTrue(busy < ran, "no git gc ran at all");
        Map<String, String> paths = new HashMap<>();
        a.acked.keySet().forEach(i -> paths.put(i, CRITIC));
        b.acked.keySet().forEach(i -> paths.put(i, YOUNG));
        Map<String, String> commits = new HashMap<>(a.acked);
        commits.putAll(b.acked);
        root.assertAllPresent("after git gc beside the stream", paths, commits);
        root.awaitMemorydFilesClean("after the gc runs", 10_000);
        root.assertLedgerVerifies("after git gc beside the stream");
        root.assertFsck("after git gc beside the stream");
    }

    @Test
    void aBranchReadBeforeTheIndex_asGitCommitReadsThem_isNeverAheadOfTheIndex() throws Exception {
        // `git commit` reads the branch, then the index, and only then takes the index lock: a
        // branch memoryd moved paired with the index before memoryd's update commits a tree that
        // takes back memoryd's last write on top of it, and memoryd records that as the human's edit.
        serve();
        AgentStream a = stream(CRITIC, "Triggers", "pair ", 40);
        assertTrue(a.awaitAcked(5, 60_000), "the agent's writes are acknowledged");
        Path gitDir = cfg.root().resolve(".git");
        Path ref = gitDir.resolve("refs/heads/main");
        List<String> behind = new ArrayList<>();
        Set<String> heads = new TreeSet<>();
        int reads = 0;
        try (org.eclipse.jgit.lib.Repository repo = new org.eclipse.jgit.storage.file.FileRepositoryBuilder()
                .setGitDir(gitDir.toFile())
                .build()) {
            long end = System.nanoTime() + 8_000_000_000L;
            while (System.nanoTime() < end) {
                String head;
                try {
                    head = Files.readString(ref).strip();
                } catch (java.nio.file.NoSuchFileException e) {
                    continue; // between a ref lock's rename and nothing: read again
                }
                org.eclipse.jgit.dircache.DirCache index = org.eclipse.jgit.dircache.DirCache.read(
                        gitDir.resolve("index").toFile(), repo.getFS());
                reads++;
                heads.add(head);
                org.eclipse.jgit.dircache.DirCacheEntry e = index.getEntry(CRITIC);
                try (org.eclipse.jgit.revwalk.RevWalk rw = new org.eclipse.jgit.revwalk.RevWalk(repo);
                        org.eclipse.jgit.treewalk.TreeWalk tw = org.eclipse.jgit.treewalk.TreeWalk.forPath(
                                repo,
                                CRITIC,
                                rw.parseCommit(org.eclipse.jgit.lib.ObjectId.fromString(head))
                                        .getTree())) {
                    if (tw == null || e == null || tw.getObjectId(0).equals(e.getObjectId())) {
                        continue;
                    }
                    String atHead = new String(repo.open(tw.getObjectId(0)).getBytes(), StandardCharsets.UTF_8);
                    String inIndex = new String(repo.open(e.getObjectId()).getBytes(), StandardCharsets.UTF_8);
                    for (String line : atHead.split("\n")) {
                        if (line.startsWith("- pair ") && !inIndex.contains(line + "\n")) {
                            behind.add(head.substring(0, 10) + " has '" + line + "', the index read after it does not");
                            break;
                        }
                    }
                }
            }
        }
        a.stop();
        System.out.printf(
                "branch then index, as git commit reads them: %d reads over %d heads, %d behind%n",
                reads, heads.size(), behind.size());
        assertTrue(heads.size() > 20, "the branch hardly moved while it was read: " + heads.size());
        assertEquals(
                List.of(),
                behind.subList(0, Math.min(5, behind.size())),
                behind.size() + " reads paired a moved" + " branch with an index behind it");
        root.awaitMemorydFilesClean("after the stream", 10_000);
    }
}
