package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.cli.Main;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Open connections are bounded and cheap, in a real daemon process: over the limit a client is
 * refused at once with one line, idle connections hold no thread, and clients holding descriptors
 * never starve the writer of its own.
 */
@Timeout(120)
class ConnectionLimitTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    @TempDir
    Path tmp;

    MemorydConfig cfg;
    Process daemon;
    /**
     * The connection that found the daemon up, kept open: a probe closed instead would hold its
     * slot until the daemon reads its end, which may come after the test has counted on it.
     */
    SocketClient first;

    final List<SocketChannel> idle = new ArrayList<>();

    @AfterEach
    void down() throws Exception {
        for (SocketChannel ch : idle) {
            ch.close();
        }
        if (first != null) {
            first.close();
        }
        if (daemon != null) {
            daemon.destroy();
            assertTrue(daemon.waitFor(30, TimeUnit.SECONDS), "daemon did not stop on SIGTERM");
        }
    }

    @Test
    void connectionOverTheLimit_isRefusedWithOneLine_writesStillServed_closingFreesSlots() throws Exception {
        serve(null, "--max-connections", "50");
        try (SocketClient writer = first) {
            openIdle(49);
            try (SocketChannel over = connect()) {
                String line = readLine(over);
                JsonNode r = JsonRpc.MAPPER.readTree(line);
                assertEquals(
                        "unavailable",
                        r.path("error").path("data").path("reason").asText(),
                        line);
                String msg = r.path("error").path("message").asText();
                assertTrue(msg.contains("50") && msg.contains("--max-connections"), msg);
                assertEquals(-1, over.read(ByteBuffer.allocate(1)), "a refused connection should be closed");
            }
            assertTrue(write(writer, "while full").has("result"), "an admitted client must still be served");
            for (int i = 0; i < 10; i++) {
                idle.remove(0).close();
            }
            assertTrue(pingWithin(5_000), "closing connections should free slots");
        }
        assertTrue(Files.readString(cfg.root().resolve(CRITIC)).contains("- while full\n"));
    }

    @Test
    void thousandsOfIdleConnections_addNoThreads() throws Exception {
        serve(null, "--max-connections", "3000");
        long before = threads();
        openIdle(2500);
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            // accepted in order: once this one is served, every idle one before it has been accepted
            assertTrue(write(c, "among idle clients").has("result"));
        }
        long after = threads();
        assertTrue(after - before < 40, "threads went from " + before + " to " + after + " for 2500 idle connections");
        for (SocketChannel ch : idle) {
            assertTrue(ch.isConnected());
        }
    }

    @Test
    void lowOpenFileLimit_leavesDescriptorsForTheWriter() throws Exception {
        serve(256);
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            assertTrue(c.call("ping", null).has("result"));
            openIdle(400); // more than the process may open: the daemon refuses some of them itself
            String last = readLine(idle.get(idle.size() - 1)); // decided after every earlier one
            assertTrue(last.contains("\"unavailable\""), last);
            int refused = 0;
            for (SocketChannel ch : idle) {
                ch.configureBlocking(false);
                if (ch.read(ByteBuffer.allocate(4096)) != 0) {
                    refused++;
                }
            }
            assertTrue(refused >= 400 - 256, refused + " of 400 connections refused under an open-file limit of 256");
            for (int i = 0; i < 5; i++) {
                JsonNode r = write(c, "with descriptors scarce " + i);
                assertTrue(r.has("result"), r.toString());
            }
            JsonNode v = c.call("ledger.verify", null).get("result");
            assertTrue(v.get("ok").asBoolean(), v.toString());
        }
        String log = Files.readString(log());
        assertTrue(log.contains("open-file limit 256"), "the effective limit is not explained at start:\n" + log);
        assertTrue(
                log.lines().count() < 200,
                "the daemon log grew to " + log.lines().count() + " lines");
    }

    private boolean pingWithin(long ms) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (System.nanoTime() < deadline) {
            try (SocketClient c = SocketClient.connect(cfg.socket())) {
                if (c.call("ping", null).has("result")) {
                    return true;
                }
            }
            Thread.sleep(50);
        }
        return false;
    }

    private static JsonNode write(SocketClient c, String item) throws IOException {
        return c.call(
                "write",
                TestRoot.json("{\"rationale\":\"t\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                        + "\",\"section\":\"Triggers\",\"item\":\"" + item + "\"}]}"));
    }

    private void openIdle(int n) throws IOException {
        for (int i = 0; i < n; i++) {
            idle.add(connect());
        }
    }

    private SocketChannel connect() throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(cfg.socket()));
        return ch;
    }

    /**
     * The first line the daemon sends on {@code ch}, which it must send within 20 s (a refusal is
     * sent at once): a connection the daemon admitted instead fails here rather than blocking.
     */
    private static String readLine(SocketChannel ch) throws IOException, InterruptedException {
        ch.configureBlocking(false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        ByteBuffer one = ByteBuffer.allocate(1);
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        while (true) {
            int n = ch.read(one.clear());
            if (n < 0 || (n == 1 && one.get(0) == '\n')) {
                break;
            } else if (n == 1) {
                b.write(one.get(0));
            } else if (System.nanoTime() - deadline > 0) {
                fail("no line from the daemon in 20 s (admitted, not refused?); had: "
                        + b.toString(StandardCharsets.UTF_8));
            } else {
                Thread.sleep(5);
            }
        }
        ch.configureBlocking(true);
        return b.toString(StandardCharsets.UTF_8);
    }

    private long threads() throws IOException {
        try (var s = Files.list(Path.of("/proc", String.valueOf(daemon.pid()), "task"))) {
            return s.count();
        }
    }

    private Path log() {
        return cfg.root().resolveSibling("daemon.log");
    }

    /**
     * Starts a daemon child process, under an open-file limit of {@code nofile} when not null, and
     * leaves {@link #first} connected to it.
     */
    private void serve(Integer nofile, String... extra) throws Exception {
        cfg = MemorydConfig.defaults(tmp.resolve("memory"), tmp.resolve("ledger.key"));
        Memoryd.init(cfg, TestRoot.exampleTree());
        List<String> cmd = new ArrayList<>();
        if (nofile != null) {
            cmd.addAll(List.of("bash", "-c", "ulimit -n " + nofile + " && exec \"$0\" \"$@\""));
        }
        cmd.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "serve",
                "--no-watch",
                "--root",
                cfg.root().toString(),
                "--key-file",
                cfg.keyFile().toString()));
        cmd.addAll(List.of(extra));
        daemon = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!daemon.isAlive()) {
                fail("daemon exited with " + daemon.exitValue() + "; log: " + Files.readString(log()));
            }
            SocketClient c = null;
            try {
                c = SocketClient.connect(cfg.socket());
                if (c.call("ping", null).has("result")) {
                    first = c;
                    return;
                }
            } catch (IOException e) {
                Thread.sleep(20);
            } finally {
                if (c != null && c != first) {
                    c.close();
                }
            }
        }
        fail("daemon did not come up; log: " + Files.readString(log()));
    }
}
