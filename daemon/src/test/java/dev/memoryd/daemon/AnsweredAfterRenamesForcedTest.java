package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpParse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch is answered only once the directories of its renames are forced; when other writes wait,
 * the writer does not wait for those forces but publishes the next batch meanwhile, and the
 * replies still come in the order of the batches.
 */
class AnsweredAfterRenamesForcedTest {
    private static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    private static WriteRequest item(String text) throws Exception {
        OpParse p = OpCodec.parse(TestRoot.json("{\"op\":\"append_item\",\"path\":\"" + CRITIC
                + "\",\"section\":\"Triggers\",\"item\":\"" + text + "\"}"));
        return new WriteRequest(List.of(((OpParse.Ok) p).op()), "r", "agent", null, null);
    }

    @Test
    void aBatchIsAnsweredOnceItsDirectoriesAreForced_whileTheWriterPublishesTheWritesThatWaited() throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            var service = root.daemon.service();
            assertInstanceOf(
                    WriteOutcome.Committed.class, service.write(item("warm")).get(30, TimeUnit.SECONDS));

            AtomicInteger locks = new AtomicInteger();
            AtomicInteger forces = new AtomicInteger();
            AtomicReference<CompletableFuture<WriteOutcome>> first = new AtomicReference<>();
            AtomicReference<CompletableFuture<WriteOutcome>> second = new AtomicReference<>();
            CountDownLatch secondAtTheLock = new CountDownLatch(1);
            AtomicBoolean wentOn = new AtomicBoolean();
            AtomicBoolean firstAnsweredEarly = new AtomicBoolean(true);
            List<String> answered = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            service.beforeIndexLock(() -> {
                if (locks.incrementAndGet() == 1) {
                    try {
                        // The second write arrives while the first batch is at work: it waits for the next.
                        CompletableFuture<WriteOutcome> f = service.write(item("second"));
                        f.thenRun(() -> answered.add("second"));
                        second.set(f);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                } else {
                    secondAtTheLock.countDown();
                }
            });
            service.beforeRenamesForced(() -> {
                if (forces.incrementAndGet() == 1) {
                    try {
                        wentOn.set(secondAtTheLock.await(5, TimeUnit.SECONDS));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    firstAnsweredEarly.set(first.get().isDone());
                }
            });
            try {
                CompletableFuture<WriteOutcome> f = service.write(item("first"));
                f.thenRun(() -> answered.add("first"));
                first.set(f);
                assertInstanceOf(WriteOutcome.Committed.class, f.get(30, TimeUnit.SECONDS));
                assertInstanceOf(WriteOutcome.Committed.class, second.get().get(30, TimeUnit.SECONDS));
            } finally {
                service.beforeIndexLock(null);
                service.beforeRenamesForced(null);
            }
            assertEquals(2, locks.get(), "two batches");
            assertFalse(firstAnsweredEarly.get(), "the first batch was answered before its directories were forced");
            assertTrue(
                    wentOn.get(),
                    "the writer waited for the first batch's directories before it took the write that waited");
            assertEquals(List.of("first", "second"), answered, "replies in the order of the batches");
            String head = root.git("show", "HEAD:" + CRITIC);
            assertTrue(head.contains("- first\n") && head.contains("- second\n"), head);
        }
    }
}
