package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpParse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code git commit} fails at once on a held {@code index.lock}, so what a batch does while it
 * holds git's lock is what a human beside an agent meets. A {@code git status} after a batch
 * writes the index (it records the stat of the ledger segment the batch appended), so the next
 * batch finds the index written by someone else; it must still hold the lock only to put its
 * files, index and ref in place: its look at the index and files comes before the lock, and its
 * index is built on the one git wrote.
 */
class ShortIndexHoldTest {
    private static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    private static void acked(TestRoot root, String item) throws Exception {
        OpParse p = OpCodec.parse(TestRoot.json("{\"op\":\"append_item\",\"path\":\"" + CRITIC
                + "\",\"section\":\"Triggers\",\"item\":\"" + item + "\"}"));
        WriteRequest w = new WriteRequest(List.of(((OpParse.Ok) p).op()), "r", "agent", null, null);
        assertInstanceOf(
                WriteOutcome.Committed.class, root.daemon.service().write(w).get(30, TimeUnit.SECONDS), item);
    }

    private static Object identity(Path index) throws Exception {
        BasicFileAttributes a = Files.readAttributes(index, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return List.of(String.valueOf(a.fileKey()), a.size(), a.lastModifiedTime());
    }

    /**
     * No batch read or edited the index under git's lock, the index is in step with the branch, and
     * the branch holds the {@code count} items {@code prefix 0..count-1}.
     */
    private static void heldShortAndInStep(TestRoot root, String prefix, int count) throws Exception {
        JsonNode stats = root.call("ping", "{}").get("result").get("write_stats");
        assertEquals(0, stats.get("locked_index_reads").asLong(), stats::toString);
        assertEquals(0, stats.get("locked_index_edits").asLong(), stats::toString);
        assertEquals("", root.statusOnceQuiet(10_000), "the index is in step");
        String head = root.git("show", "HEAD:" + CRITIC);
        for (int i = 0; i < count; i++) {
            assertEquals(true, head.contains("- " + prefix + " " + i + "\n"), head);
        }
    }

    @Test
    void afterGitStatusWroteTheIndex_aBatchNeitherReadsNorEditsTheIndexUnderGitsLock() throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            acked(root, "first");
            Path index = root.dir.resolve(".git/index");
            for (int i = 0; i < 6; i++) {
                Object before = identity(index);
                root.git("status", "--porcelain");
                assertNotEquals(before, identity(index), "git status wrote the index (else nothing is tested)");
                acked(root, "after status " + i);
            }
            heldShortAndInStep(root, "after status", 6);
        }
    }

    @Test
    void aGitStatusBetweenABatchsIndexAndItsLock_getsTheIndexBuiltAgainBeforeTheLock_notEditedUnderIt()
            throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            acked(root, "first");
            Path index = root.dir.resolve(".git/index");
            java.util.concurrent.atomic.AtomicInteger wrote = new java.util.concurrent.atomic.AtomicInteger();
            root.daemon.service().beforeIndexLook(() -> {
                try {
                    Object before = identity(index);
                    root.git("status", "--porcelain");
                    if (!before.equals(identity(index))) {
                        wrote.incrementAndGet();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                for (int i = 0; i < 6; i++) {
                    acked(root, "raced " + i);
                }
            } finally {
                root.daemon.service().beforeIndexLook(null);
            }
            assertEquals(6, wrote.get(), "git status wrote the index inside every batch (else nothing is tested)");
            heldShortAndInStep(root, "raced", 6);
        }
    }

    /**
     * A git command that holds the index lock when a batch comes to take it, and writes a new index
     * when it lets go (as {@code git status} and {@code git commit} do): the batch waits for it,
     * builds its index again on the new one and takes the lock with it, rather than editing the
     * index while git commands are kept out.
     */
    @Test
    void aBatchMeetingGitsIndexLock_waitsAndBuildsItsIndexAgain_notEditedUnderTheLock() throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            acked(root, "first");
            Path index = root.dir.resolve(".git/index");
            Path lock = root.dir.resolve(".git/index.lock");
            java.util.concurrent.atomic.AtomicInteger held = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.ExecutorService git = java.util.concurrent.Executors.newSingleThreadExecutor();
            root.daemon.service().beforeIndexLock(() -> {
                try {
                    // What git does: its new index written as the lock file, renamed over the index.
                    Files.copy(index, lock);
                    held.incrementAndGet();
                    git.submit(() -> {
                        Thread.sleep(50);
                        Files.move(lock, index, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                        return null;
                    });
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try {
                for (int i = 0; i < 3; i++) {
                    acked(root, "met the lock " + i);
                }
            } finally {
                root.daemon.service().beforeIndexLock(null);
                git.shutdown();
                git.awaitTermination(10, TimeUnit.SECONDS);
            }
            assertEquals(3, held.get(), "each batch met the lock");
            heldShortAndInStep(root, "met the lock", 3);
        }
    }

    /**
     * A look taken while a git command is at work may meet its half-written tree: here a reset
     * that has written an older version of the full ledger segment and not yet the index (which
     * records it once the command is done) and never moves the branch. The batch must not take
     * that file for someone's own edit and keep that conclusion: once git lets go, the segment is
     * found rolled back and the branch's version put back.
     */
    @Test
    void aLookWhileAGitCommandIsAtWork_concludesNothing_andARolledBackFullSegmentIsPutBack() throws Exception {
        String full = "ledger/main/0000/00000000.ndjson";
        try (TestRoot root = new TestRoot(tmp).serve()) {
            HumanGit human = new HumanGit(root.dir);
            for (int i = 0; !Files.exists(root.dir.resolve("ledger/main/0000/00000001.ndjson")); i++) {
                acked(root, "filling " + i);
            }
            assertEquals("", root.statusOnceQuiet(10_000), "clean before the reset");
            String older = human.ok("show", "HEAD~3:" + full);
            String olderBlob = human.ok("rev-parse", "HEAD~3:" + full).strip();
            // The index the reset writes last: the older segment recorded, built aside beforehand.
            Path index = root.dir.resolve(".git/index");
            Path lock = root.dir.resolve(".git/index.lock");
            Path next = root.dir.resolve(".git/index.test-next");
            Files.copy(index, next);
            org.eclipse.jgit.dircache.DirCache dc =
                    org.eclipse.jgit.dircache.DirCache.lock(next.toFile(), org.eclipse.jgit.util.FS.DETECTED);
            dc.read();
            org.eclipse.jgit.dircache.DirCacheEditor ed = dc.editor();
            ed.add(new org.eclipse.jgit.dircache.DirCacheEditor.PathEdit(full) {
                @Override
                public void apply(org.eclipse.jgit.dircache.DirCacheEntry e) {
                    e.setObjectId(org.eclipse.jgit.lib.ObjectId.fromString(olderBlob));
                    e.setLength(older.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
                }
            });
            ed.finish();
            dc.write();
            dc.commit();
            java.util.concurrent.ExecutorService git = java.util.concurrent.Executors.newSingleThreadExecutor();
            java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
            root.daemon.service().beforeIndexLook(() -> {
                if (!once.compareAndSet(false, true)) {
                    return;
                }
                try {
                    Files.copy(index, lock); // the reset takes the lock, then writes the older files
                    Files.writeString(root.dir.resolve(full), older, java.nio.charset.StandardCharsets.UTF_8);
                    git.submit(() -> {
                        Thread.sleep(100);
                        Files.move(next, lock, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                        Files.move(lock, index, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                        return null; // its ref move then fails: the branch stays where it is
                    });
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try {
                acked(root, "during the reset");
            } finally {
                root.daemon.service().beforeIndexLook(null);
                git.shutdown();
                git.awaitTermination(10, TimeUnit.SECONDS);
            }
            acked(root, "after the reset");
            assertEquals(
                    human.ok("show", "HEAD:" + full),
                    Files.readString(root.dir.resolve(full)),
                    "the full segment is the branch's again");
            assertEquals("", root.statusOnceQuiet(10_000), "the index is in step");
            String head = root.git("show", "HEAD:" + CRITIC);
            assertEquals(true, head.contains("- during the reset\n"), head);
            assertEquals(true, head.contains("- after the reset\n"), head);
        }
    }
}
