package dev.memoryd.daemon.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SO_PEERCRED: a server that belongs to another user refuses this process's connections. */
class PeerCredentialsTest {
    @TempDir
    Path tmp;

    @Test
    void peerOfAnotherUid_isRefusedAsUnauthorized_andNothingIsHandled() throws Exception {
        String other = System.getProperty("user.name").equals("nobody") ? "root" : "nobody";
        AtomicBoolean handled = new AtomicBoolean();
        Path sock = tmp.resolve("s.sock");
        try (SocketServer s = new SocketServer(
                sock,
                line -> {
                    handled.set(true);
                    return Optional.of("{}");
                },
                1 << 20,
                Duration.ofSeconds(5),
                other)) {
            s.start();
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(sock)));
            // The daemon answers a refused peer at once, before it sends anything, then hangs up.
            try (java.nio.channels.SocketChannel ch =
                    java.nio.channels.SocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
                ch.connect(java.net.UnixDomainSocketAddress.of(sock));
                String line = new java.io.BufferedReader(new java.io.InputStreamReader(
                                java.nio.channels.Channels.newInputStream(ch), java.nio.charset.StandardCharsets.UTF_8))
                        .readLine();
                JsonNode r = JsonRpc.MAPPER.readTree(line);
                assertEquals(
                        "unauthorized",
                        r.path("error").path("data").path("reason").asText(),
                        line);
                assertEquals(-1, ch.read(java.nio.ByteBuffer.allocate(1)), "connection should be closed");
            }
        }
        assertFalse(handled.get(), "a refused peer's request reached the handler");
    }

    @Test
    void peerOfSameUid_isServed() throws Exception {
        Path sock = tmp.resolve("s.sock");
        try (SocketServer s = new SocketServer(
                sock,
                line -> Optional.of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"),
                1 << 20,
                Duration.ofSeconds(5))) {
            s.start();
            try (SocketClient c = SocketClient.connect(sock)) {
                assertTrue(c.call("ping", null).has("result"));
            }
        }
    }
}
