package dev.memoryd.daemon.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The socket server's contract with a handler that echoes each line: order per connection,
 * independence between connections, replies larger than the socket buffer, half-closed clients.
 */
@Timeout(60)
class SocketServerTest {
    @TempDir
    Path tmp;

    @Test
    void pipelinedRequests_answeredInOrder_whileAnotherConnectionIsServedMeanwhile() throws Exception {
        try (SocketServer s = serve(line -> {
            if (line.startsWith("slow")) {
                sleep(600);
            }
            return Optional.of("re:" + line);
        })) {
            try (Client a = new Client();
                    Client b = new Client()) {
                a.send("slow-1\nfast-2\nfast-3\n");
                Thread.sleep(50); // slow-1 is running
                long t0 = System.nanoTime();
                b.send("fast-b\n");
                assertEquals("re:fast-b", b.line());
                assertTrue(
                        System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(400),
                        "a slow request on one connection held up another");
                assertEquals("re:slow-1", a.line());
                assertEquals("re:fast-2", a.line());
                assertEquals("re:fast-3", a.line());
            }
        }
    }

    @Test
    void manyWaitingRequests_doNotHoldUpOtherConnections() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (SocketServer s = serve(line -> {
            if (line.equals("wait")) {
                await(release);
            }
            return Optional.of("re:" + line);
        })) {
            List<Client> waiting = new ArrayList<>();
            try {
                for (int i = 0; i < 64; i++) {
                    Client c = new Client();
                    waiting.add(c);
                    c.send("wait\n");
                }
                try (Client other = new Client()) {
                    long t0 = System.nanoTime();
                    other.send("ping\n");
                    assertEquals("re:ping", other.line());
                    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "64 long polls held up a ping");
                }
                release.countDown();
                for (Client c : waiting) {
                    assertEquals("re:wait", c.line());
                }
            } finally {
                release.countDown();
                for (Client c : waiting) {
                    c.close();
                }
            }
        }
    }

    @Test
    void repliesLargerThanTheSocketBuffer_arriveWholeAndInOrder_toAClientThatReadsLate() throws Exception {
        String big = "y".repeat(3 << 20);
        try (SocketServer s = serve(line -> Optional.of(line + ":" + big))) {
            try (Client a = new Client()) {
                a.send("r1\nr2\nr3\n");
                Thread.sleep(300); // the daemon is left holding what the socket did not take
                for (String id : List.of("r1", "r2", "r3")) {
                    String line = a.line();
                    assertEquals(id.length() + 1 + big.length(), line.length());
                    assertTrue(line.startsWith(id + ":"), line.substring(0, 10));
                }
            }
        }
    }

    @Test
    void clientThatHalfCloses_stillGetsEveryReply_thenEndOfStream() throws Exception {
        try (SocketServer s = serve(line -> Optional.of("re:" + line))) {
            try (Client a = new Client()) {
                a.send("one\ntwo\nthree");
                a.ch.shutdownOutput();
                assertEquals("re:one", a.line());
                assertEquals("re:two", a.line());
                assertEquals(null, a.line(), "an unfinished last line is dropped, then the connection ends");
            }
        }
    }

    @Test
    void closingConnections_isSeenAndFreesTheirCount() throws Exception {
        try (SocketServer s = serve(line -> Optional.of("re:" + line))) {
            List<Client> cs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                Client c = new Client();
                cs.add(c);
                c.send("hi\n");
                assertEquals("re:hi", c.line());
            }
            assertEquals(20, s.connections());
            for (Client c : cs) {
                c.close();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (s.connections() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, s.connections());
        }
    }

    private SocketServer serve(Function<String, Optional<String>> handler) throws IOException {
        SocketServer s = new SocketServer(tmp.resolve("s.sock"), handler, 1 << 20, Duration.ofSeconds(5));
        s.start();
        return s;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final class Client implements AutoCloseable {
        final SocketChannel ch;
        final BufferedReader in;

        Client() throws IOException {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch.connect(UnixDomainSocketAddress.of(tmp.resolve("s.sock")));
            in = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8));
        }

        void send(String s) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }

        String line() throws IOException {
            return in.readLine();
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }
}
