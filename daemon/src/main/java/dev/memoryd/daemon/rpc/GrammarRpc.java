package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.intParam;
import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Replies.await;
import static dev.memoryd.daemon.rpc.Replies.unwrap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.promotions.Promotions;
import dev.memoryd.daemon.write.WriteOutcome;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code grammar} group: maintainers' changes to the grammar in force, Extensions → Core
 * promotions ({@code promotions.list}, {@code .accept}, {@code .reject}) caps
 * ({@code grammar.set_cap}) and section kinds ({@code grammar.set_kind}), through {@link Promotions}.
 */
final class GrammarRpc implements Namespace {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final ServingRoot svc;

    GrammarRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "grammar";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("promotions.list", this::list);
        r.put("promotions.accept", this::accept);
        r.put("promotions.reject", this::reject);
        r.put("grammar.set_cap", this::setCap);
        r.put("grammar.set_kind", this::setKind);
        return r;
    }

    private JsonNode list(ObjectNode p) throws BadRequest {
        only(p, "file_type", "min_files");
        Integer min = p.has("min_files") ? intParam(p, "min_files", 1, 1_000_000) : null;
        Promotions.Listing l = unwrap(svc.promotions().list(str(p, "file_type", false), min));
        ObjectNode o = F.objectNode();
        o.put("grammar_version", l.version());
        o.put("min_files", l.minFiles());
        ArrayNode out = o.putArray("candidates");
        for (Promotions.Candidate c : l.candidates()) {
            ObjectNode x = out.addObject()
                    .put("file_type", c.fileType())
                    .put("heading", c.heading())
                    .put("anchor", c.anchor())
                    .put("files", c.paths().size());
            c.paths().forEach(x.putArray("paths")::add);
        }
        return o;
    }

    private JsonNode accept(ObjectNode p) throws BadRequest {
        only(p, "file_type", "heading", "kind", "actor", "rationale");
        return reply(svc.promotions()
                .accept(
                        str(p, "file_type", true),
                        str(p, "heading", true),
                        str(p, "kind", false),
                        str(p, "actor", true),
                        str(p, "rationale", false)));
    }

    private JsonNode reject(ObjectNode p) throws BadRequest {
        only(p, "file_type", "heading", "actor", "rationale");
        return reply(svc.promotions()
                .reject(
                        str(p, "file_type", true),
                        str(p, "heading", true),
                        str(p, "actor", true),
                        str(p, "rationale", false)));
    }

    private JsonNode setCap(ObjectNode p) throws BadRequest {
        only(p, "file_type", "section", "cap", "value", "actor", "rationale");
        if (!p.has("value")) {
            throw new BadRequest(dev.memoryd.daemon.api.ErrorReason.INVALID_REQUEST, "missing parameter 'value'");
        }
        return reply(svc.promotions()
                .setCap(
                        str(p, "file_type", true),
                        str(p, "section", true),
                        str(p, "cap", true),
                        intParam(p, "value", 1, 1_000_000),
                        str(p, "actor", true),
                        str(p, "rationale", false)));
    }

    private JsonNode setKind(ObjectNode p) throws BadRequest {
        only(p, "file_type", "section", "kind", "actor", "rationale");
        return reply(svc.promotions()
                .setKind(
                        str(p, "file_type", true),
                        str(p, "section", true),
                        str(p, "kind", true),
                        str(p, "actor", true),
                        str(p, "rationale", false)));
    }

    /** A grammar change's reply: its commit, the grammar version it made, and its events. */
    private static JsonNode reply(Outcome<CompletableFuture<WriteOutcome>> o) throws BadRequest {
        WriteOutcome out = await(unwrap(o));
        ObjectNode r = F.objectNode();
        if (!(out instanceof WriteOutcome.Committed c)) {
            r.put("changed", false);
            r.put("commit", ((WriteOutcome.Unchanged) out).commit());
            return r;
        }
        r.put("changed", true);
        r.put("commit", c.commit());
        ArrayNode evs = r.putArray("events");
        c.events()
                .forEach(e -> evs.addObject()
                        .put("event_id", e.eventId())
                        .put("token", e.token())
                        .put("path", e.path())
                        .put("section", e.section()));
        return r;
    }
}
