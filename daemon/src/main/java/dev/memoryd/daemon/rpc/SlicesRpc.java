package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Replies.await;
import static dev.memoryd.daemon.rpc.Replies.unwrap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.write.Provenance;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.grammar.slices.JsonlBody;
import dev.memoryd.grammar.slices.SliceFile;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code slices} group: generic slices, their rows, and typed links ({@code explore}). */
final class SlicesRpc implements Namespace {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final ServingRoot svc;

    SlicesRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "slices";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("explore", this::explore);
        r.put("slices.create", this::create);
        r.put("slices.list", p -> {
            only(p);
            return SliceReplies.list(svc.reads()
                    .slices()
                    .list(svc.config().clock().instant(), svc.config().halfLife()));
        });
        r.put("slices.rows", this::rows);
        r.put("routine.compile", p -> {
            only(p, "id", "depth");
            int depth = p.has("depth")
                    ? Params.intParam(p, "depth", 1, 32)
                    : dev.memoryd.grammar.slices.RoutineCompiler.DEFAULT_DEPTH;
            return F.objectNode().put("markdown", unwrap(svc.reads().routines().compile(str(p, "id", true), depth)));
        });
        r.put("append_row", p -> {
            only(p, ProvenanceParams.with("id", "row", "actor"));
            Provenance prov = ProvenanceParams.of(svc.settings().provenance(), p, null);
            java.util.Optional<dev.memoryd.daemon.api.Failure> onPeer =
                    svc.peers().refuseWrite(str(p, "id", true), "append_row");
            if (onPeer.isPresent()) {
                throw new BadRequest(onPeer.get());
            }
            WriteOutcome.Committed c = (WriteOutcome.Committed)
                    await(svc.slices().appendRow(str(p, "id", true), p.get("row"), str(p, "actor", false), prov));
            ObjectNode o = F.objectNode();
            o.put("commit", c.commit());
            o.put("event_id", c.events().get(0).eventId());
            o.put("token", c.events().get(0).token());
            if (prov != null) {
                o.set("provenance", dev.memoryd.daemon.write.ProvenanceJson.of(prov));
            }
            return o;
        });
        return r;
    }

    private JsonNode explore(ObjectNode p) throws BadRequest, java.io.IOException {
        only(p, "id", "rel", "infer");
        boolean infer = false;
        if (p.has("infer")) {
            if (!p.get("infer").isBoolean()) {
                throw new BadRequest(ErrorReason.INVALID_REQUEST, "parameter 'infer' must be a boolean");
            }
            infer = p.get("infer").asBoolean();
        }
        String id = str(p, "id", true);
        ObjectNode r = Dispatcher.exploreJson(unwrap(svc.explore(id, str(p, "rel", false), infer)));
        svc.peers().peerOf(id).ifPresent(peer -> r.put("peer", peer));
        return r;
    }

    private JsonNode create(ObjectNode p) throws BadRequest {
        only(p, ProvenanceParams.with("slice", "body", "actor"));
        Provenance prov = ProvenanceParams.of(svc.settings().provenance(), p, null);
        JsonNode sl = p.get("slice");
        if (sl == null || !sl.isObject()) {
            throw new BadRequest(ErrorReason.INVALID_REQUEST, "slice must be an object (the slice: mapping)");
        }
        WriteOutcome.Committed c = (WriteOutcome.Committed)
                await(svc.slices().create((ObjectNode) sl, str(p, "body", false), str(p, "actor", false), prov));
        ObjectNode r = F.objectNode();
        String path = c.events().get(0).path();
        r.put("id", path.substring(".slices/".length(), path.length() - ".slice".length()));
        r.put("path", path);
        r.put("commit", c.commit());
        r.put("event_id", c.events().get(0).eventId());
        if (prov != null) {
            r.set("provenance", dev.memoryd.daemon.write.ProvenanceJson.of(prov));
        }
        return r;
    }

    private JsonNode rows(ObjectNode p) throws BadRequest, java.io.IOException {
        only(p, "id", "all");
        String id = str(p, "id", true);
        String text = svc.sliceText(id).orElseThrow(() -> new BadRequest(ErrorReason.NOT_FOUND, "no slice " + id));
        SliceFile sf = SliceFile.parse(text);
        ObjectNode r = F.objectNode();
        svc.peers().peerOf(id).ifPresent(peer -> r.put("peer", peer));
        ArrayNode rows = r.putArray("rows");
        if (p.path("all").asBoolean(false)) {
            JsonlBody.rows(sf.body()).forEach(x -> rows.add(x.node()));
        } else {
            JsonlBody.activeRows(sf.body()).forEach(rows::add);
        }
        return r;
    }
}
