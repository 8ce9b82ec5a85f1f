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

    private static Object inode(Path p) throws IOException {
        return Files.getAttribute(p, "unix:ino");
    }

    private static Path refFile(Path root) {
        return root.resolve(".git/refs/heads/main");
    }

    /**
     * A commit the writer's way: its ref lock held, its objects flushed and its move prepared; then
     * moved when {@code move}, else left with the lock held and the move never made.
     */
    private static ObjectId writerBatch(GitStore g, String text, boolean move) throws IOException {
        assertTrue(g.holdRef(0));
        try (CommitBatch b = g.batch()) {
            ObjectId tip = b.commit(Map.of("a.md", text.getBytes(StandardCharsets.UTF_8)), WHO, WHO, text);
            b.flush();
            b.prepareMove();
            if (move) {
                assertEquals(RefMove.Result.MOVED, b.moveRef().result());
            }
            return tip;
        }
    }

    @Test
    void aMove_keepsTheFileItReplaces_andTheNextLockIsThatFile_soNoInodeIsFreedOrMade() throws IOException {
        try (GitStore g = GitStore.open(root, "main")) {
            commit(g, "one");
            for (int i = 0; i < 3; i++) {
                assertTrue(g.holdRef(0));
                Object lockBefore = inode(g.refLockFile());
                try (CommitBatch b = g.batch()) {
                    ObjectId tip = b.commit(Map.of("a.md", ("n" + i).getBytes(StandardCharsets.UTF_8)), WHO, WHO, "n");
                    b.flush();
                    b.prepareMove();
                    Object replaced = inode(refFile(root));
                    assertEquals(RefMove.Result.MOVED, b.moveRef().result());
                    assertEquals(tip, g.refNow());
                    assertEquals(lockBefore, inode(refFile(root)), "the lock became the ref");
                    assertTrue(g.holdRef(0));
                    assertEquals(replaced, inode(g.refLockFile()), "the file the move replaced is the next lock");
                    assertEquals(tip, g.refNow(), "taking the lock changed nothing");
                    g.releaseRef();
                }
            }
            assertFalse(Files.exists(g.refLockFile()));
        }
    }

    @Test
    void aMoveThatDidNotHappen_neverLendsTheRefsOwnFileAsTheNextLock() throws IOException {
        try (GitStore g = GitStore.open(root, "main")) {
            commit(g, "one");
            ObjectId at = writerBatch(g, "two", true); // a move that kept a spare
            writerBatch(g, "three", false);
            g.releaseRef(); // the move never came: the file kept ahead of it is the ref's own
            writerBatch(g, "four", false);
            assertFalse(inode(refFile(root)).equals(inode(g.refLockFile())), "the lock is not the ref's file");
            assertEquals(at, g.refNow(), "writing the lock left the ref as it was");
            g.releaseRef();
            assertEquals(at, g.refNow());
            try (CommitBatch b = g.batch()) {
                ObjectId five = b.commit(Map.of("a.md", "five".getBytes(StandardCharsets.UTF_8)), WHO, WHO, "5");
                assertEquals(RefMove.Result.MOVED, b.publish().result());
                assertEquals(five, g.refNow());
            }
        }
    }

    @Test
    void aSpareMadeTheRefsOwnFileBehindTheWritersBack_isNotUsedAsTheLock() throws IOException {
        try (GitStore g = GitStore.open(root, "main")) {
            commit(g, "one");
            ObjectId at = writerBatch(g, "two", true);
            Path spare = root.resolve(".git/memoryd/ref-spares/refs/heads/main");
            assertTrue(Files.exists(spare), "the move kept the file it replaced");
            Files.delete(spare);
            Files.createLink(spare, refFile(root)); // say, another memoryd process on the same branch
            writerBatch(g, "three", false);
            assertFalse(inode(refFile(root)).equals(inode(g.refLockFile())));
            assertEquals(at, g.refNow(), "the ref's file was not written through the lock");
            g.releaseRef();
            assertEquals(at, g.refNow());
        }
    }

    @Test
    void aSpareThatCannotBeLinked_leavesTheLockToBeCreatedAsGitCreatesIt() throws IOException {
        try (GitStore g = GitStore.open(root, "main")) {
            commit(g, "one");
            writerBatch(g, "two", true);
            Path spare = root.resolve(".git/memoryd/ref-spares/refs/heads/main");
            Files.delete(spare);
            Files.createDirectory(spare); // a directory cannot be linked: the link is refused
            ObjectId three = writerBatch(g, "three", true);
            assertEquals(three, g.refNow(), "the lock was taken and the ref moved all the same");
            assertFalse(Files.exists(g.refLockFile()));
        }
    }
}
