package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up and shutdown of a real daemon process: SIGTERM, stale files a crash leaves behind. */
class DaemonLifecycleTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    @TempDir
    Path tmp;

    private MemorydConfig init() throws Exception {
        MemorydConfig cfg = MemorydConfig.defaults(tmp.resolve("memory"), tmp.resolve("ledger.key"));
        Memoryd.init(cfg, TestRoot.exampleTree());
        return cfg;
    }

    /**
     * A root deep enough that its socket's path passes what a Unix socket address holds: serve
     * said "Cannot invoke Thread.join because this.loop is null", hiding why.
     */
    @Test
    void aRootWhoseSocketPathIsTooLong_isRefusedAtStart_sayingWhyAndWhatToDo() throws Exception {
        Path deep = tmp.resolve("d".repeat(100)).resolve("memory");
        Path key = tmp.resolve("ledger.key");
        Memoryd.init(MemorydConfig.defaults(deep, key), TestRoot.exampleTree());
        Cli.Run r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                java.time.Duration.ofSeconds(60),
                () -> Cli.run("serve", "--root", deep.toString(), "--key-file", key.toString()));
        assertTrue(r.code() != 0, r.toString());
        assertTrue(r.err().contains("is too long for a Unix socket"), r.toString());
        assertTrue(r.err().contains("symbolic link"), r.toString());
        assertTrue(!r.err().contains("Cannot invoke"), r.toString());
    }

    /**
     * A write running when the daemon was told to stop was committed, but its connection was
     * closed first: the client heard "closed without a reply" of a write that was recorded, and
     * one that retries records it twice.
     */
    @Test
    void aWriteRunningWhenTheDaemonStops_isAnsweredBeforeItsConnectionCloses_andNoNewClientGetsIn() throws Exception {
        java.util.concurrent.CountDownLatch inBatch = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        try (TestRoot root = new TestRoot(tmp).serve()) {
            root.daemon.service().beforeIndexLock(() -> {
                inBatch.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            SocketClient c = root.client();
            java.util.concurrent.Future<JsonNode> reply = threads.submit(() -> c.call(
                    "write",
                    TestRoot.json("{\"rationale\":\"t\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                            + "\",\"section\":\"Triggers\",\"item\":\"while stopping\"}]}")));
            assertTrue(inBatch.await(30, TimeUnit.SECONDS), "the write reached its batch");
            java.util.concurrent.Future<?> stopping = threads.submit(() -> root.daemon.close());
            Path socket = root.cfg.socket();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (Files.exists(socket) && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            assertFalse(Files.exists(socket), "the socket is gone once the daemon stops: a new client hears no daemon");
            assertFalse(stopping.isDone(), "the stop waits for the running write");
            release.countDown();

            JsonNode r = reply.get(30, TimeUnit.SECONDS);
            assertTrue(r.has("result") && r.at("/result/commit").isTextual(), r.toString());
            stopping.get(30, TimeUnit.SECONDS);
            c.close();
            assertTrue(Files.readString(root.dir.resolve(CRITIC)).contains("- while stopping\n"));
        } finally {
            release.countDown();
            threads.shutdownNow();
        }
    }

    @Test
    void sigterm_finishesCleanly_removesSocketAndPid_keepsWrites() throws Exception {
        MemorydConfig cfg = init();
        Process p = CrashSafetyTest.start(cfg);
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            JsonNode r = c.call(
                    "write",
                    TestRoot.json("{\"rationale\":\"t\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                            + "\",\"section\":\"Triggers\",\"item\":\"before sigterm\"}]}"));
            assertTrue(r.has("result"), r.toString());
        }
        p.destroy(); // SIGTERM
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "daemon did not stop on SIGTERM");
        assertFalse(Files.exists(cfg.socket()), "socket left behind");
        assertFalse(Files.exists(cfg.stateDir().resolve("daemon.pid")), "pid file left behind");
        assertTrue(Files.readString(cfg.root().resolve(CRITIC)).contains("- before sigterm\n"));
    }

    @Test
    void staleSocketAndJgitLocks_fromACrash_areHandledAtStart() throws Exception {
        MemorydConfig cfg = init();
        Files.createDirectories(cfg.stateDir());
        Files.writeString(cfg.socket(), "stale");
        Path git = cfg.root().resolve(".git");
        Files.writeString(git.resolve("refs/heads/main.lock"), "0000000000000000000000000000000000000000\n");
        Files.writeString(git.resolve("index.lock"), "");
        Process p = CrashSafetyTest.start(cfg);
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            JsonNode r = c.call(
                    "write",
                    TestRoot.json("{\"rationale\":\"t\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                            + "\",\"section\":\"Triggers\",\"item\":\"after stale locks\"}]}"));
            assertTrue(r.has("result"), r.toString());
            JsonNode v = c.call("ledger.verify", null).get("result");
            assertTrue(v.get("ok").asBoolean(), v.toString());
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        assertFalse(Files.exists(git.resolve("refs/heads/main.lock")));
        assertEquals(0, p.exitValue() == 143 ? 0 : p.exitValue(), "exit code after SIGTERM");
    }
}
