package dev.memoryd.daemon.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Whether a daemon serves a root, found by asking its socket for {@code ping}: never opens the
 * repository and changes nothing. A socket file nobody listens on is a daemon that did not stop
 * cleanly (SIGKILL, a crash); the next {@code serve} replaces it.
 */
public final class DaemonProbe {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the probe found. */
    public sealed interface State permits Serving, NotServing, StaleSocket {}

    /** A daemon answered {@code ping}; {@code pid} is the one its pid file names, if it has one. */
    public record Serving(DaemonPing ping, OptionalLong pid) implements State {
        public Serving {
            java.util.Objects.requireNonNull(ping, "ping");
            java.util.Objects.requireNonNull(pid, "pid");
        }
    }

    /** No socket file: nothing serves the root. */
    public record NotServing() implements State {}

    /** A socket file no process listens on. */
    public record StaleSocket(Path socket) implements State {}

    private DaemonProbe() {}

    /** Probes {@code socket}; {@code pidFile} is the daemon's pid file beside it. */
    public static State probe(Path socket, Path pidFile) throws IOException {
        if (!Files.exists(socket)) {
            return new NotServing();
        }
        dev.memoryd.daemon.client.SocketClient c;
        try {
            c = dev.memoryd.daemon.client.SocketClient.connect(
                    socket, dev.memoryd.daemon.client.SocketClient.commandTimeout());
        } catch (ConnectException e) {
            return new StaleSocket(socket);
        }
        try (c) {
            String line = c.raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
            if (line == null) {
                throw new IOException("the daemon on " + socket + " closed the connection without answering ping");
            }
            JsonNode reply = JSON.readTree(line);
            if (!reply.has("result")) {
                throw new IOException("the daemon on " + socket + " refused ping: " + reply.path("error"));
            }
            return new Serving(ping(reply.get("result")), pid(pidFile));
        }
    }

    /** The one reading of a {@code ping} result on the client side. */
    private static DaemonPing ping(JsonNode r) {
        JsonNode w = r.path("writer");
        JsonNode watch = r.path("watcher");
        return new DaemonPing(
                text(r.path("version")),
                text(r.path("branch")),
                text(r.path("head")),
                r.path("runtime").path("uptime_ms").asLong(),
                new DaemonPing.Writer(
                        text(w.path("state")),
                        w.path("failures").asLong(),
                        text(w.path("last_error")),
                        text(w.path("last_error_at")),
                        text(w.path("git_in_progress")),
                        text(w.path("line_ends")),
                        text(w.path("index_format")),
                        texts(w.path("unmerged")),
                        staged(w.path("staged")),
                        w.path("put_back").isObject()
                                ? new DaemonPing.PutBack(
                                        text(w.path("put_back").path("path")),
                                        text(w.path("put_back").path("at")),
                                        w.path("put_back").path("count").asLong())
                                : null),
                new DaemonPing.Watcher(text(watch.path("state")), text(watch.path("last_error"))));
    }

    /** The {@code staged} array's files; empty when it is absent. */
    private static java.util.List<DaemonPing.Staged> staged(JsonNode n) {
        java.util.List<DaemonPing.Staged> out = new java.util.ArrayList<>();
        n.forEach(e -> out.add(
                new DaemonPing.Staged(text(e.path("path")), text(e.path("since")), text(e.path("captured_by")))));
        return out;
    }

    /** An array member's texts; empty when it is absent. */
    private static java.util.List<String> texts(JsonNode n) {
        java.util.List<String> out = new java.util.ArrayList<>();
        n.forEach(e -> out.add(e.asText()));
        return out;
    }

    /** A member's text; null when it is absent or null. */
    private static String text(JsonNode n) {
        return n.isMissingNode() || n.isNull() ? null : n.asText();
    }

    private static OptionalLong pid(Path pidFile) {
        try {
            return OptionalLong.of(Long.parseLong(
                    Files.readString(pidFile, StandardCharsets.UTF_8).strip()));
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty(); // an older daemon, or a file half written at its start
        }
    }
}
