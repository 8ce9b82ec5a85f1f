package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;

/**
 * {@code read} and {@code explore} through the daemon serving the root, when one does: the
 * daemon's method runs the same code on the same working tree and sees the peers it mounts, and
 * asking it opens no repository in this process. With no daemon listening the caller reads the
 * root itself.
 */
final class DaemonRead {
    private DaemonRead() {}

    /**
     * Reads through the daemon and prints as {@code read} does (the content, or with {@code json}
     * the result as one line); the exit code, or null when no daemon listens on the root's socket.
     */
    static Integer read(MemorydConfig cfg, String path, String section, String at, boolean json) throws IOException {
        ObjectNode p = JsonNodeFactory.instance.objectNode().put("path", path);
        if (section != null) {
            p.put("section", section);
        }
        if (at != null) {
            p.put("at", at);
        }
        JsonNode reply = call(cfg, "read", p);
        if (reply == null) {
            return null;
        }
        if (json || reply.has("error")) {
            return Main.print(reply, true);
        }
        System.out.print(reply.get("result").get("content").asText());
        return Main.OK;
    }

    /** The daemon's whole reply to {@code method}, or null when no daemon listens on the root's socket. */
    static JsonNode call(MemorydConfig cfg, String method, ObjectNode params) throws IOException {
        SocketClient c;
        try {
            c = SocketClient.connect(cfg.socket(), SocketClient.commandTimeout());
        } catch (ConnectException | NoSuchFileException e) {
            return null; // no daemon (or a stale socket): read the files here
        } catch (IOException e) {
            if (!Files.exists(cfg.socket())) {
                return null; // no socket file (the JDK reports it as a plain SocketException)
            }
            throw e;
        }
        try (c) {
            return c.call(method, params);
        }
    }
}
