package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.intParam;
import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Params.strings;
import static dev.memoryd.daemon.rpc.Replies.await;
import static dev.memoryd.daemon.rpc.Replies.unwrap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.substrate.ChunkStore;
import dev.memoryd.daemon.write.Provenance;
import dev.memoryd.daemon.write.WriteOutcome;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code substrate} group: the chunk graph ({@code declare}, {@code scope}, {@code traverse})
 * and derived chunks' staleness ({@code stale}).
 */
final class SubstrateRpc implements Namespace {
    private final ServingRoot svc;
    private final ReadPoint points;

    SubstrateRpc(ServingRoot svc, ReadPoint points) {
        this.svc = svc;
        this.points = points;
    }

    @Override
    public String group() {
        return "substrate";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("declare", this::declare);
        r.put("scope", this::scope);
        r.put("traverse", p -> {
            only(p, "from", "depth", "branch", "at", "limit");
            String at = points.at(p, str(p, "from", true));
            int depth = p.has("depth") ? intParam(p, "depth", 1, 5) : 1;
            int limit = p.has("limit") ? intParam(p, "limit", 1, 100_000) : 1000;
            return unwrap(svc.chunks().traverse(str(p, "from", true), depth, at, limit));
        });
        r.put("stale", p -> {
            only(p, "scope", "branch", "at", "limit");
            String at = points.at(p, str(p, "scope", true));
            int limit = p.has("limit") ? intParam(p, "limit", 1, 100_000) : 100;
            return unwrap(svc.chunks().stale(str(p, "scope", true), at, limit));
        });
        return r;
    }

    private JsonNode declare(ObjectNode p) throws BadRequest {
        only(p, ProvenanceParams.with("chunks", "placements", "removals", "rationale", "actor", "branch"));
        points.checkedOutOnly(p, "declare");
        Provenance prov = ProvenanceParams.of(svc.settings().provenance(), p, null);
        ChunkStore.Submitted s = svc.chunks()
                .declare(
                        p.get("chunks"),
                        p.get("placements"),
                        p.get("removals"),
                        str(p, "rationale", false),
                        str(p, "actor", false),
                        prov);
        WriteOutcome out = await(s.outcome());
        ObjectNode r = JsonNodeFactory.instance.objectNode();
        ArrayNode created = r.putArray("created");
        for (ChunkStore.Created c : s.created()) {
            ObjectNode o = created.addObject();
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
            r.set("provenance", prov.toJson());
        }
        return r;
    }

    private JsonNode scope(ObjectNode p) throws BadRequest, IOException {
        only(p, "scopes", "minus", "branch", "at", "limit", "offset");
        List<String> scopes = strings(p, "scopes");
        if (scopes.isEmpty()) {
            throw new BadRequest(ErrorReason.INVALID_REQUEST, "scopes must be a non-empty array of chunk ids or names");
        }
        String at = points.at(p, scopes.get(0));
        int limit = p.has("limit") ? intParam(p, "limit", 1, 100_000) : ChunkStore.DEFAULT_LIMIT;
        int offset = p.has("offset") ? intParam(p, "offset", 0, Integer.MAX_VALUE) : 0;
        return unwrap(svc.chunks().scope(new ChunkStore.ScopeQuery(scopes, strings(p, "minus"), at, limit, offset)));
    }
}
