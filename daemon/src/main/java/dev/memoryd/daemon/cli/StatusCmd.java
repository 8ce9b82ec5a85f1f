package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.doctor.DaemonProbe;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code memoryd status}: whether a daemon serves the root, from its {@code ping}. Exit 0 when one
 * does, {@link #NOT_SERVING} when none does (as {@code systemctl status}), a stale socket included.
 */
@Command(
        name = "status",
        description = "Whether a daemon serves the root: its pid, uptime, writer state and last error"
                + " (exit 0 serving, 3 not serving).")
final class StatusCmd extends Printing implements Callable<Integer> {
    static final int NOT_SERVING = 3;

    @Override
    public Integer call() throws IOException {
        MemorydConfig cfg = config();
        DaemonProbe.State s = DaemonProbe.probe(cfg.socket(), cfg.stateDir().resolve("daemon.pid"));
        ObjectNode j =
                JsonNodeFactory.instance.objectNode().put("root", cfg.root().toString());
        if (s instanceof DaemonProbe.Serving serving) {
            JsonNode ping = serving.ping();
            j.put("serving", true);
            if (serving.pid().isPresent()) {
                j.put("pid", serving.pid().getAsLong());
            } else {
                j.putNull("pid");
            }
            j.put("uptime_ms", ping.path("runtime").path("uptime_ms").asLong());
            j.set("version", ping.path("version"));
            j.set("branch", ping.path("branch"));
            j.set("head", ping.path("head"));
            j.set("writer", ping.path("writer"));
            j.set("watcher", ping.path("watcher").path("state"));
            if (out.on()) {
                JsonOutput.line(j);
                return Main.OK;
            }
            JsonNode w = ping.path("writer");
            System.out.println("memoryd " + ping.path("version").asText() + " is serving " + cfg.root() + " (pid "
                    + (serving.pid().isPresent() ? serving.pid().getAsLong() : "unknown") + ", up "
                    + human(Duration.ofMillis(j.get("uptime_ms").asLong())) + ")");
            System.out.println("  branch " + ping.path("branch").asText() + ", head "
                    + ping.path("head").asText("none"));
            System.out.println("  writer: " + w.path("state").asText("?") + " ("
                    + w.path("failures").asLong() + " failures)");
            if (w.hasNonNull("last_error")) {
                System.out.println("  last error: " + w.path("last_error_at").asText("?") + ": "
                        + w.get("last_error").asText());
            }
            System.out.println(
                    "  watcher: " + ping.path("watcher").path("state").asText("off"));
            return Main.OK;
        }
        boolean stale = s instanceof DaemonProbe.StaleSocket;
        j.put("serving", false).put("stale_socket", stale);
        if (out.on()) {
            JsonOutput.line(j);
        } else if (stale) {
            System.out.println(
                    "memoryd is not serving " + cfg.root() + ": " + cfg.socket() + " is left over from a daemon that"
                            + " did not stop cleanly; bin/memoryd serve --root " + cfg.root() + " replaces it");
        } else {
            System.out.println("memoryd is not serving " + cfg.root() + " (no socket at " + cfg.socket()
                    + "); start one with: bin/memoryd serve --root " + cfg.root());
        }
        return NOT_SERVING;
    }

    /** {@code 3d 4h}, {@code 2h 5m}, {@code 4m 10s}, {@code 12s}. */
    static String human(Duration d) {
        long s = d.toSeconds();
        if (s >= 86_400) {
            return s / 86_400 + "d " + s % 86_400 / 3600 + "h";
        }
        if (s >= 3600) {
            return s / 3600 + "h " + s % 3600 / 60 + "m";
        }
        return s >= 60 ? s / 60 + "m " + s % 60 + "s" : s + "s";
    }
}
