package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.memoryd.daemon.cli.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;

/** Every kind of bad input gets a precise error (or a closed connection) and changes nothing. */
class BadInputTest {
  static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

  @TempDir Path tmp;
  TestRoot root;
  String treeBefore;

  @BeforeEach
  void up() throws Exception {
    root = new TestRoot(tmp, Duration.ofMillis(500)).serve();
    treeBefore = snapshot();
  }

  @AfterEach
  void down() throws Exception {
    try {
      assertEquals(treeBefore, snapshot(), "bad input changed the root");
      JsonNode ping = root.call("ping", null);
      assertTrue(ping.has("result"), "daemon stopped serving after bad input");
    } finally {
      root.close();
    }
  }

  /** Files, ledger and branch head, as one string. */
  private String snapshot() throws Exception {
    StringBuilder sb = new StringBuilder();
    try (var s = Files.walk(root.dir)) {
      for (Path p : (Iterable<Path>) s.sorted()::iterator) {
        String rel = root.dir.relativize(p).toString();
        if (Files.isRegularFile(p) && !rel.startsWith(".git/") && !rel.startsWith(".memoryd")) {
          sb.append(rel).append('\n').append(Files.readString(p));
        }
      }
    }
    sb.append(Files.readString(root.dir.resolve(".git/refs/heads/main")));
    return sb.toString();
  }

  private JsonNode raw(String line) throws Exception {
    try (SocketClient c = root.client()) {
      return JsonRpc.MAPPER.readTree(c.raw(line));
    }
  }

  private static String reason(JsonNode r) {
    return r.path("error").path("data").path("reason").asText();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{not json|invalid_request",
      "[1,2]|invalid_request",
      "\"just a string\"|invalid_request",
      "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}|invalid_request",
      "{\"jsonrpc\":\"2.0\",\"id\":1}|invalid_request",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\"}|unknown_method",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[1]}|invalid_request",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{}}|invalid_request",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"frobnicate\"}]}}|invalid_op",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"delete_file\",\"path\":\"users/sam/overview.md\"}]}}|prohibited",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + CRITIC + "\",\"section\":\"Role\"}]}}|invalid_op",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + CRITIC + "\",\"section\":\"Role\",\"content\":42}]}}|invalid_op",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + CRITIC + "\",\"section\":\"Bogus\",\"content\":\"x\"}]}}|unknown_section",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + CRITIC + "\",\"section\":\"Change Log\",\"content\":\"x\"}]}}|prohibited",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"replace_section\",\"path\":\"../etc/passwd\",\"section\":\"Role\",\"content\":\"x\"}]}}|invalid_op",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"replace_section\",\"path\":\"/etc/passwd\",\"section\":\"Role\",\"content\":\"x\"}]}}|invalid_op",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"replace_section\",\"path\":\".git/config\",\"section\":\"Role\",\"content\":\"x\"}]}}|invalid_op",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"replace_section\",\"path\":\"users/sam/\\u0000x.md\",\"section\":\"Role\",\"content\":\"x\"}]}}|invalid_op",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"replace_section\",\"path\":\"users/nobody/overview.md\",\"section\":\"Identity\",\"content\":\"x\"}]}}|not_found",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"../../etc/passwd\"}}|invalid_request",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{}}|invalid_request",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"users/sam/overview.md\",\"extra\":1}}|invalid_request",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resolve\",\"params\":{\"token\":\"ev:nope\"}}|invalid_request",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resolve\",\"params\":{\"token\":\"ev:20260101T000000Z-01JC0000000000000000000000\"}}|not_found",
  })
  void badRequest_getsPreciseReason(String line, String reason) throws Exception {
    JsonNode r = raw(line);
    assertEquals(reason, reason(r), r.toString());
    assertTrue(r.path("error").path("message").asText().length() > 5, r.toString());
  }

  @Test
  void symlinkLeadingOutOfRoot_isRefused() throws Exception {
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("profile.md"), "secret");
    Files.createSymbolicLink(root.dir.resolve("users/sam/parts/evil"), outside);
    treeBefore = snapshot();
    JsonNode r = raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"users/sam/parts/evil/profile.md\"}}");
    assertEquals("invalid_request", reason(r), r.toString());
    JsonNode w = raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"ops\":[{\"op\":\"replace_section\",\"path\":\"users/sam/parts/evil/profile.md\",\"section\":\"Role\",\"content\":\"x\"}]}}");
    assertTrue(w.has("error"), w.toString());
    assertEquals("secret", Files.readString(outside.resolve("profile.md")));
  }

  @Test
  void lineOverLimit_isRejectedAsTooLarge_andConnectionKeepsServing() throws Exception {
    try (SocketClient c = root.client()) {
      String big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"" + "x".repeat(1 << 20) + "\"}}";
      JsonNode r = JsonRpc.MAPPER.readTree(c.raw(big));
      assertEquals("too_large", reason(r), r.toString());
      JsonNode ok = c.call("ping", null);
      assertTrue(ok.has("result"));
    }
  }

  @Test
  void binaryGarbage_getsError_notACrash() throws Exception {
    try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      ch.connect(UnixDomainSocketAddress.of(root.cfg.socket()));
      byte[] junk = new byte[4096];
      new java.util.Random(7).nextBytes(junk);
      for (int i = 0; i < junk.length; i++) {
        if (junk[i] == '\n') {
          junk[i] = 0;
        }
      }
      ch.write(ByteBuffer.wrap(junk));
      ch.write(ByteBuffer.wrap("\n".getBytes()));
      InputStream in = Channels.newInputStream(ch);
      String line = new String(readLine(in), StandardCharsets.UTF_8);
      assertEquals("invalid_request", reason(JsonRpc.MAPPER.readTree(line)), line);
    }
  }

  @Test
  void halfLineThenStall_isClosedAfterIdleTimeout_othersUnaffected() throws Exception {
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
        ch.connect(UnixDomainSocketAddress.of(root.cfg.socket()));
        ch.write(ByteBuffer.wrap("{\"jsonrpc\":\"2.0\",\"id\":1,\"meth".getBytes()));
        JsonNode other = root.call("ping", null);
        assertTrue(other.has("result"), "another client must be served while one stalls");
        ByteBuffer b = ByteBuffer.allocate(16);
        assertEquals(-1, ch.read(b), "stalled connection should be closed by the daemon");
      }
    });
  }

  @Test
  void clientDisconnectingMidRequest_doesNotHurtDaemon() throws Exception {
    for (int i = 0; i < 20; i++) {
      try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
        ch.connect(UnixDomainSocketAddress.of(root.cfg.socket()));
        ch.write(ByteBuffer.wrap("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"".getBytes()));
      }
    }
    JsonNode r = root.call("read", "{\"path\":\"" + CRITIC + "\"}");
    assertTrue(r.has("result"), r.toString());
  }

  @Test
  void notification_getsNoReply_butLaterRequestsDo() throws Exception {
    try (SocketClient c = root.client()) {
      String reply = c.raw("{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
      JsonNode r = JsonRpc.MAPPER.readTree(reply);
      assertEquals(9, r.get("id").asInt());
      assertNull(r.get("error"));
    }
  }

  private static byte[] readLine(InputStream in) throws Exception {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    for (int c; (c = in.read()) != -1 && c != '\n'; ) {
      b.write(c);
    }
    return b.toByteArray();
  }
}
