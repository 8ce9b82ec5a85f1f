package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpParse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@code git stash pop} that conflicts in memoryd's files while agents' writes stream: in a
 * full ledger segment (put back by the next batch, so a human's {@code git add -A && git commit}
 * made right after cannot commit git's markers into the ledger), and in the very file a batch
 * writes (the batch is redone on the conflict, never kept as an editor's save). The writer is held
 * at known points (work queued between batches, work run before a batch's index lock), so the
 * tests do not depend on timing.
 */
class StashPopMidStreamTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    private static final String FULL = "ledger/main/0000/00000000.ndjson";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    private static WriteRequest append(String item) throws Exception {
        OpParse p = OpCodec.parse(TestRoot.json("{\"op\":\"append_item\",\"path\":\"" + CRITIC
                + "\",\"section\":\"Triggers\",\"item\":\"" + item + "\"}"));
        return new WriteRequest(List.of(((OpParse.Ok) p).op()), "r", "agent", null, null);
    }

    private static void acked(TestRoot root, String item) throws Exception {
        assertInstanceOf(
                WriteOutcome.Committed.class,
                root.daemon.service().write(append(item)).get(30, TimeUnit.SECONDS),
                item);
    }

    @Test
    void aConflictedFullSegment_isPutBackByTheNextBatch_whenWritesNeverPause() throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            HumanGit git = new HumanGit(root.dir);
            acked(root, "first");
            acked(root, "second");
            assertEquals("", root.statusOnceQuiet(10_000), "clean before the stash");
            root.daemon.close();

            // The stash holds an older version of the first segment (as one taken in git's unlocked
            // moment would) and a change of the human's own.
            Path full = root.dir.resolve(FULL);
            Files.writeString(full, git.ok("show", "HEAD~1:" + FULL), StandardCharsets.UTF_8);
            git.editOwnFile();
            git.ok("add", HumanGit.OWN_FILE);
            git.ok("stash");
            root.serveAsIs();
            Path next = root.dir.resolve("ledger/main/0000/00000001.ndjson");
            for (int i = 0; !Files.exists(next); i++) {
                assertTrue(i < 400, "the first segment never filled");
                acked(root, "filling " + i);
            }
            assertEquals("", root.statusOnceQuiet(10_000), "the writer is at rest before the pop");
            HumanGit.Result pop = git.run("stash", "pop");
            assertFalse(pop.ok(), "the pop conflicts: " + pop);
            assertEquals(List.of(FULL), HumanGit.conflictedPaths(pop), pop::toString);

            // The writer is held; a write and more work queue behind it, so it never finds its queue
            // empty between the pop and the look below.
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch afterWrite = new CountDownLatch(1);
            CountDownLatch releaseAfter = new CountDownLatch(1);
            CompletableFuture<Object> hold = root.daemon.service().betweenBatches(() -> {
                holding.countDown();
                return release.await(30, TimeUnit.SECONDS);
            });
            assertTrue(holding.await(30, TimeUnit.SECONDS), "the writer took the held work");
            CompletableFuture<WriteOutcome> write = root.daemon.service().write(append("after the pop"));
            CompletableFuture<Object> holdAfter = root.daemon.service().betweenBatches(() -> {
                afterWrite.countDown();
                return releaseAfter.await(30, TimeUnit.SECONDS);
            });
            try {
                release.countDown();
                assertInstanceOf(WriteOutcome.Committed.class, write.get(30, TimeUnit.SECONDS));
                assertTrue(afterWrite.await(30, TimeUnit.SECONDS), "the writer took the work after the write");

                String status = git.ok("status", "--porcelain");
                assertFalse(status.contains("UU " + FULL), status);
                assertEquals(git.ok("show", "HEAD:" + FULL), Files.readString(full), "the segment is the branch's");
                // What the human would commit now: no conflict marker in the ledger.
                git.ok("add", "-A");
                assertEquals("", git.ok("diff", "--cached", "--", "ledger"), "nothing of the ledger is staged");
            } finally {
                releaseAfter.countDown();
            }
            hold.get(30, TimeUnit.SECONDS);
            holdAfter.get(30, TimeUnit.SECONDS);
            assertTrue(
                    Files.readString(root.dir.resolve(HumanGit.OWN_FILE)).contains(git.lastOwnLine()),
                    "the human's own change is back");
        }
    }

    /**
     * A {@code git stash pop} that conflicts in the very file a batch writes, made after the batch
     * read the file and before it took git's index lock (the pop read the branch before memoryd's
     * write, as in git's unlocked moment): the markers are git's, not an editor's save. The batch
     * is redone on the conflict (memoryd puts its own text back), so the acknowledged item is on
     * disk and a human's {@code git commit -am} right after keeps it. Before, the batch kept git's
     * file as "saved by someone else", committed the item while the file on disk lacked it, and the
     * human's commit took it out, recorded as their edit (the soak's round 337 of seed 20261134).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"before the batch's look at the index", "between its look and its index lock"})
    void aStashPopConflictingInTheFileABatchWrites_beforeItsIndexLock_losesNoAcknowledgedItem(String when)
            throws Exception {
        boolean beforeLook = when.startsWith("before");
        try (TestRoot root = new TestRoot(tmp).serve()) {
            HumanGit git = new HumanGit(root.dir);
            acked(root, "first");
            assertEquals("", root.statusOnceQuiet(10_000), "clean before the stash");
            root.daemon.close();
            // A stash taken while the branch was at "first", holding the text before it.
            Path file = root.dir.resolve(CRITIC);
            Files.writeString(file, git.ok("show", "HEAD~1:" + CRITIC), StandardCharsets.UTF_8);
            git.ok("stash");
            root.serveAsIs();
            acked(root, "second");
            assertEquals("", root.statusOnceQuiet(10_000), "the writer is at rest before the pop");

            java.util.List<HumanGit.Result> pops = new java.util.concurrent.CopyOnWriteArrayList<>();
            Runnable pop = () -> {
                if (pops.isEmpty()) {
                    try {
                        pops.add(git.run("stash", "pop"));
                    } catch (java.io.IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
            };
            if (beforeLook) {
                root.daemon.service().beforeIndexLook(pop);
            } else {
                root.daemon.service().beforeIndexLock(pop);
            }
            try {
                acked(root, "third");
            } finally {
                root.daemon.service().beforeIndexLook(null);
                root.daemon.service().beforeIndexLock(null);
            }
            assertEquals(1, pops.size());
            assertFalse(pops.get(0).ok(), "the pop conflicts: " + pops.get(0));
            assertEquals(List.of(CRITIC), HumanGit.conflictedPaths(pops.get(0)), pops.get(0)::toString);

            String onDisk = Files.readString(file);
            assertTrue(onDisk.contains("- third\n"), "the acknowledged item is on disk: " + onDisk);
            assertFalse(onDisk.contains("<<<<<<<"), "no conflict marker on disk: " + onDisk);
            git.run("commit", "-qam", "human: whatever is there"); // "nothing to commit" once memoryd's text is back
            root.call("capture", null);
            String head = git.ok("show", "HEAD:" + CRITIC);
            for (String item : List.of("first", "second", "third")) {
                assertTrue(head.contains("- " + item + "\n"), item + " at HEAD after the human's commit: " + head);
            }
            assertFalse(head.contains("<<<<<<<"), head);
        }
    }
}
