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
 * child process once per agent write, and not again when its watcher sees the branch move to
 * memoryd's own commit or sees the files memoryd wrote change; a commit made with git, and a
 * human's save, still wake a capture. Counted by {@code ping}'s {@code write_stats.ref_locks}.
 */
class OwnCommitsWakeNoCaptureTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    private static long refLocks(DaemonProcess d) throws Exception {
        return d.result("ping", null).path("write_stats").path("ref_locks").asLong(-1);
    }

    private DaemonProcess serve(MemorydConfig cfg, long quietMs) throws Exception {
        Memoryd.init(cfg, TestRoot.exampleTree());
        DaemonProcess d = DaemonProcess.start(cfg, tmp.resolve("daemon.log"), "--quiet-ms", String.valueOf(quietMs));
        d.awaitImported();
        Thread.sleep(1_000 + 2 * Math.min(quietMs, 1_000)); // the start's own looks settle
        return d;
    }

    /** Five agent writes, {@code gapMs} apart, then as long again: the ref locks they took. */
    private static long fiveWrites(DaemonProcess d, long gapMs) throws Exception {
        long before = refLocks(d);
        assertTrue(before >= 0, "ping counts ref locks");
        for (int i = 0; i < 5; i++) {
            JsonNode r = d.call("write", Decl.of(Decl.appendItem(CRITIC, "Triggers", "own commit " + i)));
            assertTrue(r.path("result").path("commit").isTextual(), r::toString);
            Thread.sleep(gapMs);
        }
        Thread.sleep(gapMs);
        return refLocks(d) - before;
    }

    private static void awaitMoreThan(DaemonProcess d, long locks, String what) throws Exception {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (refLocks(d) <= locks && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(refLocks(d) > locks, what);
    }

    /** A quiet period longer than the test: only the watcher's look at the moved branch could add a lock. */
    @Test
    void memorydsOwnCommits_wakeNoCaptureOfTheBranch_aHumansCommitDoes() throws Exception {
        MemorydConfig cfg = MemorydConfig.defaults(tmp.resolve("memory"), tmp.resolve("ledger.key"));
        try (DaemonProcess d = serve(cfg, 60_000)) {
            assertEquals(
                    5, fiveWrites(d, 400), "one ref lock per write (the watcher looks at a moved branch after 200 ms)");

            long locks = refLocks(d);
            HumanGit git = new HumanGit(cfg.root());
            git.editOwnFile();
            git.ok("add", HumanGit.OWN_FILE);
            git.ok("commit", "-qm", "a human's commit");
            awaitMoreThan(d, locks, "a commit made with git wakes a capture");
            assertTrue(Files.exists(cfg.root().resolve(HumanGit.OWN_FILE)));
        }
    }

    /** A short quiet period: the watcher looks at the files each write changed, after it. */
    @Test
    void theFilesMemorydWrote_wakeNoLockedCapture_aHumansSaveIsCaptured() throws Exception {
        MemorydConfig cfg = MemorydConfig.defaults(tmp.resolve("memory"), tmp.resolve("ledger.key"));
        try (DaemonProcess d = serve(cfg, 200)) {
            assertEquals(5, fiveWrites(d, 900), "one ref lock per write, none for the watcher's look at its files");

            long locks = refLocks(d);
            Path f = cfg.root().resolve(CRITIC);
            Files.writeString(f, Files.readString(f).replace("- own commit 4\n", "- own commit 4\n- a human's line\n"));
            awaitMoreThan(d, locks, "a human's save wakes a capture");
            long deadline = System.nanoTime() + 15_000_000_000L;
            while (!new HumanGit(cfg.root()).ok("show", "HEAD:" + CRITIC).contains("a human's line")
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(new HumanGit(cfg.root()).ok("show", "HEAD:" + CRITIC).contains("- a human's line"), "recorded");
        }
    }
}
