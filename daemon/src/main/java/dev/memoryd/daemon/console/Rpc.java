package dev.memoryd.daemon.console;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;

/**
 * The console's one way to the daemon: each call is one request on a connection of its own to the
 * daemon's socket, so the daemon stays the only writer and every decision is the same method the
 * CLI calls. Never starts a daemon. Thread-safe.
 */
final class Rpc {
  /** What came back. */
  sealed interface Reply {}

  /** The daemon's {@code result}. */
  record Result(JsonNode value) implements Reply {}

  /** The daemon's {@code error}: {@code reason} as the protocol names it. */
  record Refused(String reason, String message, JsonNode data) implements Reply {}

  /** No daemon answers on the socket: nothing was sent. */
  record NoDaemon(String why) implements Reply {}

  /** The connection failed after the request may have been sent: whether it took effect is unknown. */
  record Lost(String why) implements Reply {}

  /**
   * A page cannot be shown because a read it needs was not answered; the server renders
   * {@code reply} (how to start the daemon, or the daemon's refusal) instead.
   */
  static final class Unanswered extends RuntimeException {
    final transient Reply reply;
    final String method;

    Unanswered(String method, Reply reply) {
      super(method + ": " + reply);
      this.method = method;
      this.reply = reply;
    }
  }

  private final Path root;
  private final Path socket;

  Rpc(Path root, Path socket) {
    this.root = root;
    this.socket = socket;
  }

  Path root() {
    return root;
  }

  Path socket() {
    return socket;
  }

  /** The command that starts the daemon this console talks to. */
  String startCommand() {
    return "bin/memoryd serve --root " + root;
  }

  static ObjectNode params() {
    return JsonRpc.MAPPER.createObjectNode();
  }

  /** Sets {@code name} to {@code value} unless it is null (an optional parameter left out). */
  static void putIf(ObjectNode p, String name, String value) {
    if (value != null) {
      p.put(name, value);
    }
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

  /** The result of a read a page cannot do without; any other reply is {@link Unanswered}. */
  JsonNode get(String method, ObjectNode params) {
    Reply r = call(method, params);
    if (r instanceof Result ok) {
      return ok.value();
    }
    throw new Unanswered(method, r);
  }
}
