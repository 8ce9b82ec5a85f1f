package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.doctor.DaemonPing;
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
            DaemonPing ping = serving.ping();
            DaemonPing.Writer w = ping.writer();
            j.put("serving", true);
            if (serving.pid().isPresent()) {
                j.put("pid", serving.pid().getAsLong());
            } else {
                j.putNull("pid");
            }
            j.put("uptime_ms", ping.uptimeMs());
            j.put("version", ping.version());
            j.put("branch", ping.branch());
            j.put("head", ping.head());
            j.set("writer", writerJson(w));
            j.put("watcher", ping.watcher().state());
            if (out.on()) {
                JsonOutput.line(j);
                return Main.OK;
            }
            System.out.println("memoryd " + orElse(ping.version(), "") + " is serving " + cfg.root() + " (pid "
                    + (serving.pid().isPresent() ? serving.pid().getAsLong() : "unknown") + ", up "
                    + human(Duration.ofMillis(ping.uptimeMs())) + ")");
            System.out.println("  branch " + orElse(ping.branch(), "") + ", head " + orElse(ping.head(), "none"));
            System.out.println("  writer: " + orElse(w.state(), "?") + " (" + w.failures() + " failures)");
            if (w.gitInProgress() != null) {
                System.out.println("  waiting: git " + w.gitInProgress() + " in progress in the working tree;"
                        + " writes are refused until it is concluded or aborted");
            }
            if (w.lineEnds() != null) {
                System.out.println("  waiting: git converts the line ends of memory files (by " + w.lineEnds()
                        + "); writes are refused until it keeps them byte for byte (see bin/memoryd doctor)");
            }
            if (w.indexFormat() != null) {
                System.out.println("  waiting: git's index is " + w.indexFormat() + ", a form memoryd cannot read;"
                        + " writes are refused until it is whole (see bin/memoryd doctor)");
            }
            if (!w.unmerged().isEmpty()) {
                System.out.println("  in conflict in git's index (neither captured nor written until you git add"
                        + " them): " + String.join(", ", w.unmerged()));
            }
            for (DaemonPing.Staged f : w.staged()) {
                System.out.println("  staged: " + f.path() + " waits for your git commit (captured without one at "
                        + orElse(f.capturedBy(), "?") + ")");
            }
            if (w.putBack() != null) {
                System.out.println("  put back: " + w.putBack().path() + " at "
                        + orElse(w.putBack().at(), "?")
                        + (w.putBack().count() > 1 ? " (" + w.putBack().count() + " files since start)" : "")
                        + ": a git command wrote an older version without a commit; acknowledged writes leave"
                        + " the branch only by a commit (git checkout REV -- FILE && git commit)");
            }
            if (w.lastError() != null) {
                System.out.println("  last error: " + orElse(w.lastErrorAt(), "?") + ": " + w.lastError());
            }
            System.out.println("  watcher: " + orElse(ping.watcher().state(), "off"));
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

    /** The writer's health as {@code ping} gives it: {@code state, failures}, then {@code last_error, last_error_at} after an error. */
    private static ObjectNode writerJson(DaemonPing.Writer w) {
        ObjectNode o =
                JsonNodeFactory.instance.objectNode().put("state", w.state()).put("failures", w.failures());
        if (w.lastError() != null) {
            o.put("last_error", w.lastError()).put("last_error_at", w.lastErrorAt());
        }
        if (w.gitInProgress() != null) {
            o.put("git_in_progress", w.gitInProgress());
        }
        if (w.lineEnds() != null) {
            o.put("line_ends", w.lineEnds());
        }
        if (w.indexFormat() != null) {
            o.put("index_format", w.indexFormat());
        }
        if (!w.unmerged().isEmpty()) {
            w.unmerged().forEach(o.putArray("unmerged")::add);
        }
        if (!w.staged().isEmpty()) {
            com.fasterxml.jackson.databind.node.ArrayNode a = o.putArray("staged");
            w.staged()
                    .forEach(f -> a.addObject()
                            .put("path", f.path())
                            .put("since", f.since())
                            .put("captured_by", f.capturedBy()));
        }
        if (w.putBack() != null) {
            o.putObject("put_back")
                    .put("path", w.putBack().path())
                    .put("at", w.putBack().at())
                    .put("count", w.putBack().count());
        }
        return o;
    }

    private static String orElse(String s, String absent) {
        return s == null ? absent : s;
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
