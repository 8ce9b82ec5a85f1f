package dev.memoryd.daemon.client;

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
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.memoryd.daemon.rpc.JsonRpc;

/** A blocking JSON-RPC client over the daemon's socket. One request at a time; not thread-safe. */
public final class SocketClient implements AutoCloseable {
  private final SocketChannel ch;
  private final BufferedReader in;
  private final AtomicLong ids = new AtomicLong();

  private SocketClient(SocketChannel ch) {
    this.ch = ch;
    this.in = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8));
  }

  public static SocketClient connect(Path socket) throws IOException {
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      ch.connect(UnixDomainSocketAddress.of(socket));
    } catch (IOException e) {
      ch.close();
      throw e;
    }
    return new SocketClient(ch);
  }

  /** Sends a request and returns the whole reply object ({@code result} or {@code error}). */
  public JsonNode call(String method, JsonNode params) throws IOException {
    ObjectNode req = JsonRpc.MAPPER.createObjectNode();
    req.put("jsonrpc", "2.0");
    req.put("id", ids.incrementAndGet());
    req.put("method", method);
    if (params != null) {
      req.set("params", params);
    }
    String reply = raw(JsonRpc.MAPPER.writeValueAsString(req));
    if (reply == null) {
      throw new java.io.EOFException("the daemon closed the connection without a reply");
    }
    return JsonRpc.MAPPER.readTree(reply);
  }

  /**
   * Sends one raw line and returns the raw reply line (null if the daemon closed). A failure
   * before any byte of the line was sent is {@link NotSent}: the daemon never saw the request.
   */
  public String raw(String line) throws IOException {
    ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
    try {
      ch.write(b);
    } catch (IOException e) {
      if (b.position() == 0) {
        throw new NotSent(e);
      }
      throw e;
    }
    while (b.hasRemaining()) {
      ch.write(b);
    }
    return in.readLine();
  }

  /** The connection failed before the request's first byte left: nothing was sent (e.g. the daemon closed it). */
  public static final class NotSent extends IOException {
    private static final long serialVersionUID = 1L;

    NotSent(IOException cause) {
      super("nothing sent: " + cause.getMessage(), cause);
    }
  }

  @Override
  public void close() throws IOException {
    ch.close();
  }
}
