package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A chain that a merge links to travels with the merge: a branch merged and then deleted (so
 * its ref never reaches the remote) leaves every clone verifiable, whether made with
 * {@code memoryd clone}, synced into another root, or made with plain {@code git clone} and
 * checked with the CLI, without access to the root it came from.
 */
class LinkedChainsTravelTest extends TwoRootsTest {
    static final String NOTES = "users/sam/parts/inner-critic/notes.md";

    private static JsonNode writeOn(TestRoot r, String branch, String item) throws Exception {
        return ok(r.call(
                "write",
                "{\"rationale\":\"r\",\"actor\":\"agent\",\"branch\":\"" + branch + "\",\"ops\":[{\"op\":"
                        + "\"append_item\",\"path\":\"" + NOTES + "\",\"section\":\"Inbox\",\"item\":\"" + item
                        + "\"}]}"));
    }

    /** On {@code r}: branch exp made, written to, merged into main, deleted; then r syncs. */
    private void mergedAndDeleted(TestRoot r) throws Exception {
        ok(r.call("branch.create", "{\"name\":\"exp\"}"));
        writeOn(r, "exp", "tried on exp");
        assertTrue(
                ok(r.call("branch.merge", "{\"from\":\"exp\"}")).get("changed").asBoolean());
        ok(r.call("branch.delete", "{\"name\":\"exp\"}"));
        JsonNode s = ok(sync(r));
        assertTrue(s.get("ok").asBoolean(), s.toString());
        assertFalse(remoteHas("refs/heads/exp"), "the branch never reached the remote");
    }

    private boolean remoteHas(String ref) throws Exception {
        return !run("git", "-C", remote.toString(), "for-each-ref", ref).isBlank();
    }

    /** A plain {@code git clone} of {@code url}: no memoryd involved. */
    private Path plainClone(String url, String name) throws Exception {
        Path c = tmp.resolve(name);
        run("git", "clone", "-q", url, c.toString());
        return c;
    }

    /** {@code memoryd ledger verify --root dir} as a user runs it: the exit code, and what it printed. */
    private record Cli(int exit, String out) {}

    private Cli verifyWithCli(Path dir) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream p = new PrintStream(buf, true, StandardCharsets.UTF_8);
        System.setOut(p);
        System.setErr(p);
        try {
            int exit = Main.run(new String[] {
                "ledger",
                "verify",
                "--root",
                dir.toString(),
                "--key-file",
                a.cfg.keyFile().toString()
            });
            return new Cli(exit, buf.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    private void assertCliVerifies(Path dir) {
        Cli v = verifyWithCli(dir);
        assertEquals(0, v.exit(), v.out());
        assertTrue(v.out().contains("ledger ok"), v.out());
    }

    private static void assertVerifies(TestRoot r) throws Exception {
        JsonNode v = ok(r.call("ledger.verify", null));
        assertTrue(v.get("ok").asBoolean(), v.toString());
        JsonNode replay = ok(r.call("replay", "{\"verify\":true}"));
        assertTrue(replay.get("ok").asBoolean(), replay.toString());
    }

    @Test
    void aPlainCloneOfTheRemote_verifies_afterABranchWasMergedAndDeleted() throws Exception {
        mergedAndDeleted(a);
        Path c = plainClone(remote.toString(), "plain");
        assertFalse(Files.exists(c.resolve("ledger/exp")), "exp's chain is not in main's tree");
        assertTrue(Files.readString(c.resolve(NOTES)).contains("tried on exp"));
        Files.move(remote, tmp.resolve("moved-away.git")); // the clone verifies from what it holds
        assertCliVerifies(c);
        assertVerifies(a);
    }

    @Test
    void anotherRootThatSyncs_verifies_afterABranchWasMergedAndDeletedThere() throws Exception {
        mergedAndDeleted(a);
        JsonNode s = ok(sync(b));
        assertTrue(s.get("ok").asBoolean(), s.toString());
        assertTrue(b.file(NOTES).contains("tried on exp"));
        assertVerifies(b);
        assertCliVerifies(tmp.resolve("b/memory"));
        // and the remote, once b pushed its merge, still clones into a verifiable root
        assertCliVerifies(plainClone(remote.toString(), "plain-after-b"));
    }

    @Test
    void aPlainCloneOfTheRootItself_verifies() throws Exception {
        mergedAndDeleted(a);
        assertCliVerifies(plainClone(a.dir.toString(), "plain-of-a"));
    }

    @Test
    void aMemorydCloneOfTheRemote_verifies_beforeAndAfterItsFirstStart() throws Exception {
        mergedAndDeleted(a);
        TestRoot c = TestRoot.cloneOf(tmp.resolve("c"), remote.toString(), a.cfg.keyFile(), "c");
        assertCliVerifies(c.dir);
        try (TestRoot served = c.serveAsIs()) {
            writeOn(served, "main", "from c");
            assertVerifies(served);
        }
    }

    @Test
    void aBranchMergedButNotDeleted_leavesAPlainCloneVerifiable_too() throws Exception {
        ok(a.call("branch.create", "{\"name\":\"exp\"}"));
        writeOn(a, "exp", "tried on exp");
        ok(a.call("branch.merge", "{\"from\":\"exp\"}"));
        assertTrue(ok(sync(a)).get("ok").asBoolean());
        assertTrue(remoteHas("refs/heads/exp"));
        assertCliVerifies(plainClone(remote.toString(), "plain"));
    }

    @Test
    void aReplicasBranchMergedAndDeleted_travelsToTheFirstRoot_andToPlainClones() throws Exception {
        mergedAndDeleted(b);
        JsonNode s = ok(sync(a));
        assertTrue(s.get("ok").asBoolean(), s.toString());
        assertTrue(a.file(NOTES).contains("tried on exp"));
        assertFalse(Files.exists(a.dir.resolve("ledger/exp@b")), "b's chain of exp was never on a's disk");
        assertVerifies(a);
        assertCliVerifies(plainClone(remote.toString(), "plain"));
        assertCliVerifies(plainClone(b.dir.toString(), "plain-of-b"));
    }

    @Test
    void aShallowCloneWithoutTheMergedCommit_reportsTheBrokenLink_namingThatCommit() throws Exception {
        mergedAndDeleted(a);
        String merged = a.git("rev-parse", "main^2").strip();
        Path c = tmp.resolve("shallow");
        run("git", "clone", "-q", "--depth", "1", "file://" + remote, c.toString());
        Cli v = verifyWithCli(c);
        assertEquals(1, v.exit(), v.out());
        assertTrue(v.out().contains("\"reason\":\"broken_link\""), v.out());
        assertTrue(v.out().contains("commit " + merged + ", which the line names, is not in this repository"), v.out());
    }
}
