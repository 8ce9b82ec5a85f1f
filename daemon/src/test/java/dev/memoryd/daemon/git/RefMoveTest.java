package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A batch's ref move reports what happened to the branch as a value, and the store's head follows the branch. */
class RefMoveTest {
    private static final PersonIdent WHO = new PersonIdent("t", "t@example.com", Instant.EPOCH, ZoneOffset.UTC);

    @TempDir
    Path root;

    @BeforeEach
    void init() throws IOException {
        GitStore.init(root, "main");
    }

    private static ObjectId commit(GitStore g, String text) throws IOException {
        try (CommitBatch b = g.batch()) {
            ObjectId c = b.commit(Map.of("a.md", text.getBytes(StandardCharsets.UTF_8)), WHO, WHO, text);
            assertEquals(RefMove.Result.MOVED, b.publish().result());
            return c;
        }
    }

    @Test
    void publish_movesTheBranchToTheTip() throws IOException {
        try (GitStore g = GitStore.open(root, "main")) {
            ObjectId first = commit(g, "one");
            try (CommitBatch b = g.batch()) {
                ObjectId tip = b.commit(Map.of("a.md", "two".getBytes(StandardCharsets.UTF_8)), WHO, WHO, "two");
                RefMove m = b.publish();
                assertEquals(RefMove.Result.MOVED, m.result());
                assertEquals(tip, m.current());
                assertTrue(m.done());
                assertEquals(tip, g.head());
                assertEquals(tip, g.refNow());
                assertEquals(first, g.commitsBetween(null, tip, 5).get(1).id());
            }
            assertFalse(Files.exists(g.refLockFile()));
        }
    }

    @Test
    void aBatchWithoutCommits_changesNothing() throws IOException {
        try (GitStore g = GitStore.open(root, "main")) {
            ObjectId first = commit(g, "one");
            try (CommitBatch b = g.batch()) {
                RefMove m = b.publish();
                assertEquals(RefMove.Result.NO_CHANGE, m.result());
                assertTrue(m.done());
                assertEquals(first, g.refNow());
            }
        }
    }

    @Test
    void aRefLockAnotherGitCommandHolds_isLockedAndLeftInPlace() throws IOException {
        try (GitStore g = GitStore.open(root, "main")) {
            ObjectId first = commit(g, "one");
            Files.writeString(g.refLockFile(), "");
            try (CommitBatch b = g.batch()) {
                b.commit(Map.of("a.md", "two".getBytes(StandardCharsets.UTF_8)), WHO, WHO, "two");
                RefMove m = b.publish();
                assertEquals(RefMove.Result.LOCKED, m.result());
                assertFalse(m.done());
                IOException e = assertThrows(IOException.class, m::orThrow);
                assertTrue(e.getMessage().startsWith("cannot lock refs/heads/main: "), e.getMessage());
                assertTrue(Files.exists(g.refLockFile()), "another command's lock is not ours to remove");
                assertEquals(first, g.head());
                assertEquals(first, g.refNow());
            }
            assertEquals("one", new String(g.read(g.head(), "a.md").orElseThrow(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aBranchMovedByAnotherCommand_isMovedUnderUs_andTheStoreFollowsIt() throws IOException {
        try (GitStore g = GitStore.open(root, "main");
                GitStore other = GitStore.open(root, "main")) {
            commit(g, "one");
            other.reloadHead();
            ObjectId theirs = commit(other, "theirs");
            try (CommitBatch b = g.batch()) {
                b.commit(Map.of("a.md", "ours".getBytes(StandardCharsets.UTF_8)), WHO, WHO, "ours");
                RefMove m = b.publish();
                assertEquals(RefMove.Result.MOVED_UNDER_US, m.result());
                assertEquals(theirs, m.current());
                IOException e = assertThrows(IOException.class, m::orThrow);
                assertEquals(
                        "branch refs/heads/main moved under the writer (now " + theirs.name() + ")", e.getMessage());
                assertEquals(theirs, g.head());
                assertEquals(theirs, g.refNow());
            }
            assertFalse(Files.exists(g.refLockFile()));
            // The tree image followed the branch: the next batch commits on top of theirs.
            try (CommitBatch b = g.batch()) {
                ObjectId next = b.commit(Map.of("b.md", "next".getBytes(StandardCharsets.UTF_8)), WHO, WHO, "next");
                assertEquals(RefMove.Result.MOVED, b.publish().result());
                assertEquals("theirs", new String(g.read(next, "a.md").orElseThrow(), StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void aHeldRefLock_isConsumedByTheMove() throws IOException {
        try (GitStore g = GitStore.open(root, "main")) {
            commit(g, "one");
            assertTrue(g.holdRef(0));
            try (GitStore second = GitStore.open(root, "main")) {
                assertFalse(second.holdRef(0), "a second holder waits for the first");
            }
            try (CommitBatch b = g.batch()) {
                ObjectId tip = b.commit(Map.of("a.md", "two".getBytes(StandardCharsets.UTF_8)), WHO, WHO, "two");
                b.flush();
                b.prepareMove();
                assertEquals(RefMove.Result.MOVED, b.moveRef().result());
                assertEquals(tip, g.refNow());
            }
            assertFalse(Files.exists(g.refLockFile()));
            g.releaseRef(); // nothing left to give back
            assertTrue(g.holdRef(0), "the branch can be locked again");
            g.releaseRef();
        }
    }
}
