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
