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
import dev.memoryd.daemon.proposals.ProposalBook;
import dev.memoryd.daemon.write.WriteOutcome;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code proposals} group: writes to sections marked for review, waiting for a human. */
final class ProposalsRpc implements Namespace {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final ServingRoot svc;

    ProposalsRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "proposals";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("proposals.list", p -> {
            only(p, "all");
            ObjectNode o = F.objectNode();
            ArrayNode items = o.putArray("items");
            for (ProposalBook.Proposal x : svc.proposals().list(p.path("all").asBoolean(false))) {
                items.add(proposalJson(x));
            }
            return o;
        });
        r.put("proposals.show", p -> {
            only(p, "id");
            String id = str(p, "id", true);
            return proposalJson(svc.proposals()
                    .get(id)
                    .orElseThrow(() ->
                            new BadRequest(ErrorReason.NOT_FOUND, "no proposal " + id + " (see proposals.list)")));
        });
        r.put("proposals.accept", p -> close(p, true));
        r.put("proposals.reject", p -> close(p, false));
        return r;
    }

    private JsonNode close(ObjectNode p, boolean accept) throws BadRequest {
        only(p, "id", "actor", "note");
        String id = str(p, "id", true);
        WriteOutcome out = await(
                accept
                        ? svc.proposals().accept(id, str(p, "actor", false), str(p, "note", false))
                        : svc.proposals().reject(id, str(p, "actor", false), str(p, "note", false)));
        ObjectNode r = F.objectNode();
        r.put("id", id);
        r.put("status", accept ? "accepted" : "rejected");
        r.put("commit", out instanceof WriteOutcome.Committed c ? c.commit() : null);
        return r;
    }

    private static ObjectNode proposalJson(ProposalBook.Proposal x) {
        ObjectNode o = F.objectNode();
        o.put("id", x.id())
                .put("branch", x.branch())
                .put("commit", x.commit())
                .put("status", x.status())
                .put("actor", x.actor())
                .put("created", x.created())
                .put("rationale", x.rationale());
        o.set("changes", x.base());
        o.set("ops", x.ops());
        if (x.closedBy() != null) {
            o.put("closed_by", x.closedBy());
            o.put("note", x.note());
        }
        return o;
    }
}
