package dev.memoryd.daemon;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code ping} tells of a serving daemon: who it is, what it serves, how long it has run,
 * and the health of its writer and watcher, its open drift and its mounted peers. The maps are
 * the wire's objects, key order included. Immutable.
 *
 * @param head the checked-out branch's head commit, null before the first commit
 * @param jitMs milliseconds the JIT compiler has spent, or -1 when the JVM does not say
 */
public record PingInfo(
        String version,
        String protocol,
        String root,
        String branch,
        String head,
        Instant started,
        long uptimeMs,
        long jitMs,
        Map<String, Object> writeStats,
        Map<String, Object> writer,
        Map<String, Object> watcher,
        int driftOpen,
        List<Map<String, Object>> peers) {
    public PingInfo {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(branch, "branch");
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(writeStats, "writeStats");
        Objects.requireNonNull(writer, "writer");
        Objects.requireNonNull(watcher, "watcher");
        peers = List.copyOf(peers);
    }
}
