package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A daemon that accepts connections and never answers (stopped with SIGSTOP, or stuck): a
 * person's command gives up after the reply timeout and says what to check, instead of hanging.
 */
class StuckDaemonTest {
    @TempDir
    Path tmp;

    MemorydConfig cfg;
    ServerSocketChannel silent;
    final List<SocketChannel> accepted = new CopyOnWriteArrayList<>();
    Thread acceptor;

    @BeforeEach
    void up() throws Exception {
        cfg = MemorydConfig.defaults(tmp.resolve("memory"), tmp.resolve("ledger.key"));
        silent = TestRoot.boundInPlaceOfADaemon(cfg);
        acceptor = new Thread(() -> {
            try {
                while (true) {
                    accepted.add(silent.accept()); // read nothing, answer nothing
                }
            } catch (java.io.IOException e) {
                // closed by the test
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        System.setProperty("memoryd.replyTimeoutMs", "700");
    }

    @AfterEach
    void down() throws Exception {
        System.clearProperty("memoryd.replyTimeoutMs");
        silent.close();
        for (SocketChannel c : accepted) {
            c.close();
        }
    }

    private String declaration() {
        try {
            Path f = tmp.resolve("decl.json");
            Files.writeString(
                    f,
                    "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"users/sam/notes.md\","
                            + "\"section\":\"Inbox\",\"item\":\"x\"}]}");
            return f.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private Cli.Run timed(String... args) {
        long t0 = System.nanoTime();
        Cli.Run r = Cli.run(args);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 10_000, "gave up after " + ms + " ms: " + r);
        return r;
    }

    @Test
    @Timeout(120)
    void readStatusAndWrite_giveUpOnADaemonThatNeverAnswers_andSayWhatToCheck() {
        String root = cfg.root().toString();
        String key = cfg.keyFile().toString();
        for (String[] args : List.of(
                new String[] {"read", "users/sam/notes.md", "--root", root, "--key-file", key},
                new String[] {"status", "--root", root},
                new String[] {"write", "--root", root, "--file", declaration()})) {
            Cli.Run r = timed(args);
            assertNotEquals(0, r.code(), args[0] + ": " + r);
            assertTrue(r.err().contains("no reply from the daemon within 700 ms"), args[0] + ": " + r);
        }
    }
}
