package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code git revert} that meets the branch's ref lock held by someone else (as memoryd holds it
 * for a moment while it looks for a human's commits), in a plain repository: git stages the
 * revert before it fails on the lock, so running the same command again is refused, and the
 * human's helper finishes it with a commit instead.
 */
class HumanGitRevertTest {
    @TempDir
    Path dir;

    HumanGit git;
    String second;

    @BeforeEach
    void twoCommits() throws Exception {
        git = new HumanGit(dir);
        git.ok("init", "-q", "-b", "main");
        Files.writeString(dir.resolve("f.txt"), "one\n");
        git.ok("add", "f.txt");
        git.ok("commit", "-qm", "one");
        Files.writeString(dir.resolve("f.txt"), "one\ntwo\n");
        git.ok("commit", "-qam", "two");
        second = git.ok("rev-parse", "HEAD").strip();
    }

    /** Holds {@code refs/heads/main.lock} for longer than git waits for it (100 ms), then lets go. */
    private Thread holdRefLock(long ms) throws Exception {
        Path lock = dir.resolve(".git/refs/heads/main.lock");
        Files.writeString(lock, second + "\n");
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(ms);
                Files.delete(lock);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        t.start();
        return t;
    }

    @Test
    void aRevertRunAgainAfterTheRefLockFailed_isRefused_forItStagedItself() throws Exception {
        Thread held = holdRefLock(400);
        HumanGit.Result r = git.retryingLocks(50, "revert", "--no-edit", second);
        held.join();
        assertFalse(r.ok(), r.toString());
        assertTrue(r.out().contains("your local changes would be overwritten by revert"), r.toString());
        assertEquals(second, git.ok("rev-parse", "HEAD").strip(), "nothing committed");
    }

    @Test
    void theHelpersRevert_finishesWithACommit_whenTheRefLockFailedAfterStaging() throws Exception {
        Thread held = holdRefLock(400);
        HumanGit.Result r = git.revert(50, second);
        held.join();
        assertTrue(r.ok(), r.toString());
        assertTrue(r.out().contains("cannot lock ref"), "the first try met the lock: " + r);
        assertEquals(second, git.ok("rev-parse", "HEAD~1").strip());
        assertTrue(git.ok("log", "-1", "--format=%s").startsWith("Revert \"two\""), git.ok("log", "-1"));
        assertEquals("one\n", Files.readString(dir.resolve("f.txt")));
        assertEquals("", git.ok("status", "--porcelain"), "nothing left staged");
    }
}
