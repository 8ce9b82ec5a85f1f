package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.intParam;
import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Params.strings;
import static dev.memoryd.daemon.rpc.Replies.await;
import static dev.memoryd.daemon.rpc.Replies.unwrap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.substrate.ChunkStore;
import dev.memoryd.daemon.write.Provenance;
import dev.memoryd.grammar.substrate.DeclarationCodec;
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
            return SubstrateReplies.traverse(unwrap(svc.chunks().traverse(str(p, "from", true), depth, at, limit)));
        });
        r.put("stale", p -> {
            only(p, "scope", "branch", "at", "limit");
            String at = points.at(p, str(p, "scope", true));
            int limit = p.has("limit") ? intParam(p, "limit", 1, 100_000) : 100;
            return SubstrateReplies.stale(unwrap(svc.chunks().stale(str(p, "scope", true), at, limit)));
        });
        return r;
    }

    private JsonNode declare(ObjectNode p) throws BadRequest {
        only(p, ProvenanceParams.with("chunks", "placements", "removals", "rationale", "actor", "branch"));
        points.checkedOutOnly(p, "declare");
        Provenance prov = ProvenanceParams.of(svc.settings().provenance(), p, null);
        DeclarationCodec.Parse parsed = DeclarationCodec.parse(
                p.get("chunks"), p.get("placements"), p.get("removals"), svc.chunks()::newChunkId);
        if (parsed instanceof DeclarationCodec.Parse.Invalid inv) {
            throw new BadRequest(new Failure(ErrorReason.INVALID_REQUEST, inv.message(), Map.of("field", inv.field())));
        }
        ChunkStore.Submitted s = svc.chunks()
                .declare(
                        ((DeclarationCodec.Parse.Ok) parsed).declaration(),
                        str(p, "rationale", false),
                        str(p, "actor", false),
                        prov);
        return SubstrateReplies.declared(s.created(), await(s.outcome()), prov);
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
        return SubstrateReplies.scope(
                unwrap(svc.chunks().scope(new ChunkStore.ScopeQuery(scopes, strings(p, "minus"), at, limit, offset))));
    }
}
