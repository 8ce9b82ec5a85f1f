package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.DaemonReply;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;

/**
 * Forwards one method call to the daemon serving a root, over its socket. Each call has a
 * connection to itself (calls from concurrent threads never share one); a connection is kept for
 * the next call when it was used less than {@link #REUSE_WITHIN_MS} ago, which saves a connect
 * per tool call, and the daemon (which closes connections idle for 10 s) never closes it first.
 * A kept connection the daemon closed anyway (it restarted) fails before the request leaves, and
 * the call goes again on a new one. It never starts a daemon and never writes anything itself.
 * Thread-safe.
 */
final class DaemonLink implements AutoCloseable {
    /** How long an idle connection is kept for the next call. */
    static final long REUSE_WITHIN_MS = 2_000;

    private record Idle(SocketClient client, long since) {}

    private final Path root;
    private final Path socket;
    private final ConcurrentLinkedDeque<Idle> idle = new ConcurrentLinkedDeque<>();

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

    DaemonReply call(String method, ObjectNode params) {
        SocketClient kept = take();
        if (kept != null) {
            try {
                return answer(kept, kept.call(method, params));
            } catch (SocketClient.NotSent e) {
                closeQuietly(kept); // closed by the daemon meanwhile: nothing was sent, so send again below
            } catch (IOException e) {
                closeQuietly(kept);
                return DaemonReply.lost(e);
            }
        }
        SocketClient c;
        try {
            c = SocketClient.connect(socket);
        } catch (IOException e) {
            return DaemonReply.noDaemon(socket, e);
        }
        try {
            return answer(c, c.call(method, params));
        } catch (IOException e) {
            closeQuietly(c);
            return DaemonReply.lost(e);
        }
    }

    private DaemonReply answer(SocketClient c, JsonNode reply) {
        idle.addFirst(new Idle(c, System.nanoTime()));
        return DaemonReply.of(reply);
    }

    /** The most recently used idle connection still young enough; older ones are closed. */
    private SocketClient take() {
        long now = System.nanoTime();
        for (Idle i = idle.pollFirst(); i != null; i = idle.pollFirst()) {
            if (now - i.since() < TimeUnit.MILLISECONDS.toNanos(REUSE_WITHIN_MS)) {
                return i.client();
            }
            closeQuietly(i.client());
        }
        return null;
    }

    private static void closeQuietly(SocketClient c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing a socket the daemon already closed: nothing left to release
        }
    }

    /** Closes the kept connections. */
    @Override
    public void close() {
        for (Idle i = idle.pollFirst(); i != null; i = idle.pollFirst()) {
            closeQuietly(i.client());
        }
    }
}
