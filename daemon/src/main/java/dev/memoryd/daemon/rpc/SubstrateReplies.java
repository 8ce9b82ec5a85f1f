package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.substrate.ChunkStore;
import dev.memoryd.daemon.substrate.DerivedVerdict;
import dev.memoryd.daemon.substrate.GraphPoint;
import dev.memoryd.daemon.substrate.ScopeResult;
import dev.memoryd.daemon.substrate.StaleResult;
import dev.memoryd.daemon.substrate.TraverseResult;
import dev.memoryd.daemon.write.Provenance;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.grammar.substrate.Chunk;
import dev.memoryd.grammar.substrate.Placement;
import java.util.List;

/** The {@code substrate} group's results as the wire's JSON: keys and their order are the protocol's. */
final class SubstrateReplies {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private SubstrateReplies() {}

    static ObjectNode declared(List<ChunkStore.Created> created, WriteOutcome out, Provenance prov) {
        ObjectNode r = F.objectNode();
        ArrayNode cs = r.putArray("created");
        for (ChunkStore.Created c : created) {
            ObjectNode o = cs.addObject();
            o.put("ref", c.ref());
            o.put("id", c.id());
            o.put("path", c.path());
        }
        if (out instanceof WriteOutcome.Unchanged u) {
            r.put("commit", u.commit());
            r.put("changed", false);
            r.putArray("changed_paths");
            return r;
        }
        WriteOutcome.Committed c = (WriteOutcome.Committed) out;
        r.put("commit", c.commit());
        r.put("changed", true);
        ArrayNode paths = r.putArray("changed_paths");
        c.events().forEach(e -> paths.add(e.path()));
        if (prov != null) {
            r.set("provenance", dev.memoryd.daemon.write.ProvenanceJson.of(prov));
        }
        return r;
    }

    static ObjectNode scope(ScopeResult s) {
        GraphPoint at = s.point();
        ObjectNode r = header(at);
        ObjectNode counts = r.putObject("counts");
        counts.put("total", s.total());
        counts.put("returned", s.returned());
        counts.put("offset", s.offset());
        counts.put("limit", s.limit());
        ArrayNode sc = r.putArray("scopes");
        s.scopes().forEach(c -> sc.add(ref(at, c)));
        ArrayNode mn = r.putArray("minus");
        s.minus().forEach(c -> mn.add(ref(at, c)));
        ArrayNode out = r.putArray("chunks");
        for (ScopeResult.Member m : s.chunks()) {
            Chunk c = m.chunk();
            ObjectNode o = ref(at, c);
            if (!c.spec().isEmpty()) {
                o.set("spec", c.spec().toJson());
            }
            o.set("body", c.body());
            ArrayNode ps = o.putArray("placements");
            m.placements().forEach(p -> ps.add(placement(p)));
            o.put("derived", c.derived());
            verdict(m.verdict(), o);
            out.add(o);
        }
        return r;
    }

    static ObjectNode traverse(TraverseResult t) {
        GraphPoint at = t.point();
        ObjectNode r = header(at);
        r.set("from", ref(at, t.from()));
        ArrayNode chunks = r.putArray("chunks");
        for (TraverseResult.Reached c : t.chunks()) {
            ObjectNode o = ref(at, c.chunk());
            o.put("depth", c.depth());
            verdict(c.verdict(), o);
            chunks.add(o);
        }
        ArrayNode placements = r.putArray("placements");
        t.placements().forEach(p -> placements.add(placement(p)));
        ArrayNode conns = r.putArray("connections");
        for (TraverseResult.Connection c : t.connections()) {
            ObjectNode o = ref(at, c.chunk());
            o.put("depth", c.depth());
            c.via().forEach(o.putArray("via")::add);
            conns.add(o);
        }
        r.put("truncated", t.truncated());
        return r;
    }

    static ObjectNode stale(StaleResult s) {
        GraphPoint at = s.point();
        ObjectNode r = header(at);
        r.set("scope", ref(at, s.scope()));
        r.put("derived", s.derived());
        r.put("total", s.total());
        ArrayNode out = r.putArray("stale");
        for (StaleResult.Item it : s.stale()) {
            ObjectNode o = ref(at, it.chunk());
            o.set("body", it.chunk().body());
            verdict(it.verdict(), o);
            out.add(o);
        }
        r.put("truncated", s.truncated());
        return r;
    }

    /** A result's first fields: where it was read. */
    private static ObjectNode header(GraphPoint at) {
        ObjectNode r = F.objectNode();
        if (at.ofPeer()) {
            r.put("peer", at.peer());
        } else {
            r.put("branch", at.branch());
        }
        r.put("commit", at.commit());
        return r;
    }

    /** A chunk's reference fields; a peer's chunk names its peer. */
    private static ObjectNode ref(GraphPoint at, Chunk c) {
        ObjectNode o = F.objectNode();
        o.put("id", c.id());
        o.put("name", c.name());
        o.put("file", c.file());
        o.put("section", c.section());
        if (at.ofPeer()) {
            o.put("peer", at.peer());
            o.put("ref", at.peer() + ":" + c.id());
        } else {
            o.put("branch", at.branch());
        }
        return o;
    }

    private static ObjectNode placement(Placement p) {
        ObjectNode o = F.objectNode();
        o.put("chunk", p.chunk());
        o.put("scope", p.scope());
        o.put("type", p.type().wire());
        if (p.seq() != null) {
            o.put("seq", p.seq());
        }
        return o;
    }

    /**
     * A derived chunk's staleness, after its other fields: {@code stale}, {@code changed_since},
     * {@code sources}, and when they apply {@code changed_total} and {@code stale_reason}. Other
     * chunks ({@code v} null) get none.
     */
    private static void verdict(DerivedVerdict v, ObjectNode o) {
        if (v == null) {
            return;
        }
        o.put("stale", v.stale());
        v.changedSince().forEach(o.putArray("changed_since")::add);
        if (v.moreThanListed()) {
            o.put("changed_total", v.changedTotal());
        }
        v.sources().forEach(o.putArray("sources")::add);
        if (v.reason() != null) {
            o.put("stale_reason", v.reason());
        }
    }
}
