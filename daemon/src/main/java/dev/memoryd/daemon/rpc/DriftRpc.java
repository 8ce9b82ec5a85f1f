package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Replies.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.drift.DriftQueue;
import dev.memoryd.daemon.write.WriteOutcome;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code drift} group: humans' edits (and moved file references) waiting for a resolution. */
final class DriftRpc implements Namespace {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final ServingRoot svc;

    DriftRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "drift";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("drift.list", p -> {
            only(p);
            ObjectNode o = F.objectNode();
            ArrayNode items = o.putArray("items");
            for (DriftQueue.Entry e : svc.drift().list()) {
                items.addObject()
                        .put("id", e.id())
                        .put("path", e.path().value())
                        .put("kind", e.kind())
                        .put("reason", e.reason())
                        .put("since", e.since());
            }
            return o;
        });
        r.put("drift.show", this::show);
        r.put("drift.resolve", this::resolve);
        return r;
    }

    private JsonNode show(ObjectNode p) throws BadRequest, IOException {
        only(p, "id");
        String id = str(p, "id", true);
        DriftQueue.Entry e = svc.drift()
                .get(id)
                .orElseThrow(
                        () -> new BadRequest(ErrorReason.NOT_FOUND, svc.drift().notOpen(id)));
        ObjectNode r = F.objectNode();
        r.put("id", e.id())
                .put("path", e.path().value())
                .put("kind", e.kind())
                .put("reason", e.reason())
                .put("since", e.since())
                .put("updated", e.updated());
        r.set("problems", e.problems());
        r.set("human", e.human());
        r.put("text", e.text());
        // A file reference's item has no memory-file text to diff; its commits are in human.
        r.put(
                "diff",
                e.kind().startsWith(dev.memoryd.daemon.refs.RefStore.KIND_PREFIX)
                        ? e.text() + "\n"
                        : svc.reads().commits().diffFromRecorded(e.path(), e.text()));
        return r;
    }

    private JsonNode resolve(ObjectNode p) throws BadRequest {
        only(p, "id", "resolution", "from", "to", "actor", "note");
        String id = str(p, "id", true);
        String how = str(p, "resolution", true);
        DriftQueue.Resolution res = switch (how) {
            case "accept_current" -> new DriftQueue.AcceptCurrent();
            case "restore" -> new DriftQueue.Restore();
            case "dismiss" -> new DriftQueue.Dismiss();
            case "reanchor" -> new DriftQueue.Reanchor(str(p, "from", true), str(p, "to", true));
            default ->
                throw new BadRequest(
                        ErrorReason.INVALID_REQUEST,
                        "resolution must be one of accept_current," + " restore, reanchor, dismiss; got '" + how + "'");
        };
        WriteOutcome out = await(svc.drift().resolve(id, res, str(p, "actor", false), str(p, "note", false)));
        ObjectNode r = F.objectNode();
        r.put("id", id).put("resolution", how);
        r.put("commit", out instanceof WriteOutcome.Committed c ? c.commit() : null);
        return r;
    }
}
