package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.DaemonReply;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The console's one way to the daemon: each call is one request on a connection of its own to the
 * daemon's socket, so the daemon stays the only writer and every decision is the same method the
 * CLI calls. Never starts a daemon. Thread-safe.
 */
final class Rpc {
    /**
     * A page cannot be shown because a read it needs was not answered; the server renders
     * {@code reply} (how to start the daemon, or the daemon's refusal) instead.
     */
    static final class Unanswered extends RuntimeException {
        final transient DaemonReply reply;
        final String method;

        Unanswered(String method, DaemonReply reply) {
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

    DaemonReply call(String method, ObjectNode params) {
        SocketClient c;
        try {
            c = SocketClient.connect(socket);
        } catch (IOException e) {
            return DaemonReply.noDaemon(socket, e);
        }
        try (c) {
            return DaemonReply.of(c.call(method, params));
        } catch (IOException e) {
            return DaemonReply.lost(e);
        }
    }

    /** The result of a read a page cannot do without; any other reply is {@link Unanswered}. */
    JsonNode get(String method, ObjectNode params) {
        DaemonReply r = call(method, params);
        if (r instanceof DaemonReply.Result ok) {
            return ok.value();
        }
        throw new Unanswered(method, r);
    }
}
