package dev.memoryd.daemon.mcp;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.memoryd.daemon.client.SocketClient;

/**
 * Forwards one method call to the daemon serving a root, over its socket, on a connection of its
 * own (so calls from concurrent tool invocations never share one). It never starts a daemon and
 * never writes anything itself. Thread-safe.
 */
final class DaemonLink {
  /** What came back. */
  sealed interface Reply {}

  /** The daemon's {@code result}. */
  record Result(JsonNode value) implements Reply {}

  /** The daemon's {@code error}: {@code data} carries {@code reason} and the details. */
  record Refused(String reason, String message, JsonNode data) implements Reply {}

  /** No daemon answers on the socket: nothing was sent. */
  record NoDaemon(String why) implements Reply {}

  /** The connection failed after the request may have been sent: whether it took effect is unknown. */
  record Lost(String why) implements Reply {}

  private final Path root;
  private final Path socket;

  DaemonLink(Path root, Path socket) {
    this.root = root;
    this.socket = socket;
  }

  Path root() {
    return root;
  }

  Path socket() {
    return socket;
  }

  /** The command that starts the daemon this link talks to. */
  String startCommand() {
    return "bin/memoryd serve --root " + root;
  }

  Reply call(String method, ObjectNode params) {
    SocketClient c;
    try {
      c = SocketClient.connect(socket);
    } catch (IOException e) {
      return new NoDaemon(Files.exists(socket) ? "nothing answers on " + socket + ": " + e.getMessage()
          : "no socket at " + socket);
    }
    try (c) {
      JsonNode reply = c.call(method, params);
      JsonNode err = reply.get("error");
      if (err != null) {
        JsonNode data = err.path("data");
        return new Refused(data.path("reason").asText("internal"), err.path("message").asText(), data);
      }
      return new Result(reply.get("result"));
    } catch (IOException e) {
      return new Lost(e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }
}
