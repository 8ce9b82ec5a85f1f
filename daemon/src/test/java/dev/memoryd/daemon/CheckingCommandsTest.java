package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checking commands ({@code replay --verify}, {@code ledger verify}, {@code lint}, {@code read})
 * on a plain {@code git clone} of a synced repository change nothing, and serving such a clone
 * redoes nothing its history already holds: two roots sync through a bare remote, the second
 * pushing last, so the remote's first-parent line is the second root's while the first root's
 * declarations arrive through a merge's second parent.
 */
class CheckingCommandsTest {
    static final String NOTES = "users/sam/notes.md";
    static final String CRITIC_NOTES = "users/sam/parts/inner-critic/notes.md";

    @TempDir
    Path tmp;

    Path remote;
    TestRoot a;
    TestRoot b;
    Path clone;

    @BeforeEach
    void syncedRemote_andAPlainClone() throws Exception {
        TwoRoots roots = TwoRoots.start(tmp);
        remote = roots.remote;
        a = roots.a;
        b = roots.b;
        for (int i = 1; i <= 3; i++) {
            ok(appendItem(a, NOTES, "C-inbox-" + i));
        }
        assertTrue(ok(a.call("sync", "{\"remote\":\"origin\"}")).get("ok").asBoolean());
        ok(appendItem(b, CRITIC_NOTES, "from b"));
        JsonNode sb = ok(b.call("sync", "{\"remote\":\"origin\"}"));
        assertTrue(sb.get("ok").asBoolean(), sb.toString());
        a.close();
        a.daemon = null;
        b.close();
        b.daemon = null;
        clone = tmp.resolve("c/memory");
        run("git", "clone", "-q", remote.toString(), clone.toString());
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void replayVerifyAndLedgerVerify_onAPlainCloneOfASyncedRemote_reportOk_andChangeNoByte() throws Exception {
        Map<String, String> before = snapshot(clone);
        Cli.Run replay = cli("replay", "--verify");
        assertEquals(0, replay.code(), replay.toString());
        assertTrue(replay.out().contains("replay ok"), replay.toString());
        Cli.Run verify = cli("ledger", "verify");
        assertEquals(0, verify.code(), verify.toString());
        Cli.Run lint = cli("lint");
        assertEquals(0, lint.code(), lint.toString());
        Cli.Run read = cli("read", NOTES, "--section", "Inbox");
        assertEquals(0, read.code(), read.toString());
        assertEquals(1, count(read.out(), "- C-inbox-3\n"), read.out());
        assertEquals(before, snapshot(clone), "a checking command changed the clone");
        assertEquals(
                "", git(clone, "status", "--porcelain", "--untracked-files=all").strip());
    }

    @Test
    void servingAPlainCloneOfASyncedRemote_rollsNothingForward_andDuplicatesNoItem() throws Exception {
        String head = git(clone, "rev-parse", "HEAD").strip();
        try (TestRoot c = TestRoot.existing(clone, a.cfg.keyFile()).serveAsIs()) {
            // A plain clone's first serve gives it a replica id, whose chain starts with one commit of
            // its fork line; recovery commits nothing else.
            String id = c.git("config", "memoryd.replica").strip();
            assertEquals(
                    "1", c.git("rev-list", "--count", head + "..HEAD").strip(), "recovery committed on a clean clone");
            assertEquals(
                    "ledger/main@" + id + "/0000/00000000.ndjson",
                    c.git("diff", "--name-only", head, "HEAD").strip());
            assertEquals(1, count(c.file(NOTES), "- C-inbox-3\n"), c.file(NOTES));
            // What the other replica merged in is captured as the watcher's start-up rescan would, and
            // still no item doubles.
            c.importExample();
            assertEquals(1, count(c.file(NOTES), "- C-inbox-3\n"), c.file(NOTES));
            assertEquals(1, count(c.file(CRITIC_NOTES), "- from b\n"), c.file(CRITIC_NOTES));
            JsonNode replay = ok(c.call("replay", "{\"verify\":true}"));
            assertTrue(replay.get("ok").asBoolean(), replay.toString());
            assertTrue(ok(c.call("ledger.verify", null)).get("ok").asBoolean());
        }
    }

    private Cli.Run cli(String... args) {
        String[] full = java.util.Arrays.copyOf(args, args.length + 4);
        full[args.length] = "--root";
        full[args.length + 1] = clone.toString();
        full[args.length + 2] = "--key-file";
        full[args.length + 3] = a.cfg.keyFile().toString();
        return Cli.run(full);
    }

    /** Every file under {@code dir}, .git included, by SHA-256 of its bytes. */
    static Map<String, String> snapshot(Path dir) throws Exception {
        Map<String, String> out = new TreeMap<>();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String rel = dir.relativize(p).toString();
                out.put(
                        rel,
                        Files.isRegularFile(p) ? HexFormat.of().formatHex(sha.digest(Files.readAllBytes(p))) : "dir");
            }
        }
        return out;
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private static JsonNode appendItem(TestRoot r, String path, String item) throws Exception {
        return r.call(
                "write",
                "{\"rationale\":\"r\",\"actor\":\"agent\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + path
                        + "\",\"section\":\"Inbox\",\"item\":\"" + item + "\"}]}");
    }

    private static JsonNode ok(JsonNode r) {
        assertTrue(r.has("result"), r.toString());
        return r.get("result");
    }

    private static String git(Path dir, String... args) throws Exception {
        String[] cmd = new String[args.length + 3];
        cmd[0] = "git";
        cmd[1] = "-C";
        cmd[2] = dir.toString();
        System.arraycopy(args, 0, cmd, 3, args.length);
        return run(cmd);
    }

    private static String run(String... cmd) throws Exception {
        return TwoRoots.run(cmd);
    }
}
