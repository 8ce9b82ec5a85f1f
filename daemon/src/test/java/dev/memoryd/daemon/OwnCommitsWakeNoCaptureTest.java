package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The branch's ref lock, which a human's git command on the branch can meet, is taken by a daemon
 * child process once per agent write and not again when the watcher sees the branch move to
 * memoryd's own commit; a commit made with git still wakes a capture. Counted by {@code ping}'s
 * {@code write_stats.ref_locks}, with a quiet period longer than the test, so the watcher's look at
 * the files memoryd wrote (after it) stays out of the count.
 */
class OwnCommitsWakeNoCaptureTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    private static long refLocks(DaemonProcess d) throws Exception {
        return d.result("ping", null).path("write_stats").path("ref_locks").asLong(-1);
    }

    @Test
    void memorydsOwnCommits_takeTheRefLockOnceEach_aHumansCommitWakesACapture() throws Exception {
        MemorydConfig cfg = MemorydConfig.defaults(tmp.resolve("memory"), tmp.resolve("ledger.key"));
        Memoryd.init(cfg, TestRoot.exampleTree());
        try (DaemonProcess d = DaemonProcess.start(cfg, tmp.resolve("daemon.log"), "--quiet-ms", "60000")) {
            d.awaitImported();
            Thread.sleep(1_000); // the start's own looks settle
            long before = refLocks(d);
            assertTrue(before >= 0, "ping counts ref locks");
            for (int i = 0; i < 5; i++) {
                JsonNode r = d.call("write", Decl.of(Decl.appendItem(CRITIC, "Triggers", "own commit " + i)));
                assertTrue(r.path("result").path("commit").isTextual(), r::toString);
                Thread.sleep(400); // past the watcher's 200 ms look at a moved branch
            }
            Thread.sleep(600);
            assertEquals(before + 5, refLocks(d), "one ref lock per write, none for the watcher's look at it");

            HumanGit git = new HumanGit(cfg.root());
            git.editOwnFile();
            git.ok("add", HumanGit.OWN_FILE);
            git.ok("commit", "-qm", "a human's commit");
            long deadline = System.nanoTime() + 15_000_000_000L;
            while (refLocks(d) == before + 5 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(refLocks(d) > before + 5, "a commit made with git wakes a capture");
            assertTrue(Files.exists(cfg.root().resolve(HumanGit.OWN_FILE)));
        }
    }
}
