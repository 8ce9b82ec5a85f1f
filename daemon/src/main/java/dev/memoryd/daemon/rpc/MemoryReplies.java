package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.PingInfo;
import dev.memoryd.daemon.read.ReadResult;

/**
 * The wire form of a {@code read} and a {@code ping} result, for the socket and for the command
 * line's {@code --json}: the keys, their order and which are left out are the protocol's
 * ({@code docs/PROTOCOL.md}).
 */
public final class MemoryReplies {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private MemoryReplies() {}

    /** {@code {path, peer?, commit, sections: [{name, anchor, hash?}], section?, content, hash?, drift?}}. */
    public static ObjectNode read(ReadResult r) {
        ObjectNode o = F.objectNode();
        o.put("path", r.path());
        r.peer().ifPresent(p -> o.put("peer", p));
        o.put("commit", r.commit());
        ArrayNode secs = o.putArray("sections");
        for (ReadResult.Section s : r.sections()) {
            ObjectNode x = secs.addObject();
            x.put("name", s.name());
            x.put("anchor", s.anchor());
            s.hash().ifPresent(h -> x.put("hash", h));
        }
        r.section().ifPresent(s -> o.put("section", s));
        o.put("content", r.content());
        r.hash().ifPresent(h -> o.put("hash", h));
        r.drift().ifPresent(d -> o.put("drift", d));
        return o;
    }

    /**
     * {@code {version, protocol, root, branch, head, started, runtime: {uptime_ms, jit_ms},
     * write_stats, writer, watcher, drift_open, peers}}.
     */
    public static ObjectNode ping(PingInfo p) {
        ObjectNode o = F.objectNode();
        o.put("version", p.version());
        o.put("protocol", p.protocol());
        o.put("root", p.root());
        o.put("branch", p.branch());
        o.put("head", p.head());
        o.put("started", p.started().toString());
        o.putObject("runtime").put("uptime_ms", p.uptimeMs()).put("jit_ms", p.jitMs());
        o.set("write_stats", F.pojoNode(p.writeStats()));
        o.set("writer", F.pojoNode(p.writer()));
        o.set("watcher", F.pojoNode(p.watcher()));
        o.put("drift_open", p.driftOpen());
        o.set("peers", F.pojoNode(p.peers()));
        return o;
    }
}
