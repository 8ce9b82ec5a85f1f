package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.conversation.ContextSlice;
import dev.memoryd.daemon.conversation.ConversationStore;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.grammar.policy.PolicyConfig;
import dev.memoryd.grammar.policy.PolicyInputException;
import dev.memoryd.grammar.policy.Turn;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/** The {@code conversation} group: storing turns and SlicePolicy v1 context over them. */
final class ConversationRpc implements Namespace {
    private final ServingRoot svc;

    ConversationRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "conversation";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("conversation.append", this::append);
        r.put("context", this::context);
        return r;
    }

    private JsonNode append(ObjectNode p) throws BadRequest {
        only(p, ProvenanceParams.with("session_id", "turns", "actor"));
        dev.memoryd.daemon.write.Provenance prov =
                ProvenanceParams.of(svc.settings().provenance(), p, null);
        String session = str(p, "session_id", true);
        Optional<Failure> badSession = ConversationStore.checkSession(session);
        if (badSession.isPresent()) {
            throw new BadRequest(badSession.get());
        }
        List<Turn> turns = turns(session, p.get("turns"));
        WriteOutcome out;
        try {
            out = svc.conversations().append(session, turns, str(p, "actor", false), prov);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BadRequest(ErrorReason.UNAVAILABLE, "interrupted while waiting for the writer");
        } catch (ExecutionException e) {
            throw new BadRequest(
                    ErrorReason.UNAVAILABLE, "not recorded: " + e.getCause().getMessage());
        }
        if (out instanceof WriteOutcome.Rejected rej) {
            throw Replies.refused(rej, "turn_index", false);
        }
        WriteOutcome.Committed c = (WriteOutcome.Committed) out;
        ObjectNode r = JsonNodeFactory.instance.objectNode();
        r.put("commit", c.commit());
        r.put("event_id", c.events().get(0).eventId());
        r.put("token", c.events().get(0).token());
        r.put("path", c.events().get(0).path());
        r.put("turns", p.get("turns").size());
        if (prov != null) {
            r.set("provenance", dev.memoryd.daemon.write.ProvenanceJson.of(prov));
        }
        return r;
    }

    /** The turns of a request, each without a {@code session_id} given {@code session}'s. */
    private static List<Turn> turns(String session, JsonNode turns) throws BadRequest {
        if (turns == null || !turns.isArray() || turns.isEmpty()) {
            throw new BadRequest(ErrorReason.INVALID_REQUEST, "turns must be a non-empty array");
        }
        List<Turn> out = new ArrayList<>();
        for (int i = 0; i < turns.size(); i++) {
            JsonNode t = turns.get(i);
            Turn turn;
            try {
                turn = Turn.fromJson(t, "turns[" + i + "]", session); // no copy of the turn to add its session
            } catch (IllegalArgumentException e) {
                throw new BadRequest(ErrorReason.INVALID_REQUEST, e.getMessage());
            }
            Optional<Failure> other = ConversationStore.checkTurn(session, i, turn);
            if (other.isPresent()) {
                throw new BadRequest(other.get()); // before a later turn's problem, as the turns come
            }
            out.add(turn);
        }
        return out;
    }

    /** The export's members, then {@code peer} when it was selected from a mounted peer's conversations. */
    private static ObjectNode contextJson(ContextSlice c) {
        ObjectNode o = c.export().toJson();
        if (c.peer() != null) {
            o.put("peer", c.peer());
        }
        return o;
    }

    private JsonNode context(ObjectNode p) throws BadRequest, java.io.IOException {
        only(p, "anchor_turn_id", "policy");
        String anchor = str(p, "anchor_turn_id", true);
        JsonNode policy = p.get("policy");
        try {
            PolicyConfig cfg = policy == null || policy.isNull() ? PolicyConfig.DEFAULT : PolicyConfig.fromJson(policy);
            return contextJson(svc.context(anchor, cfg));
        } catch (PolicyInputException e) {
            throw new BadRequest(new Failure(
                    e.kind() == PolicyInputException.Kind.NOT_FOUND
                            ? ErrorReason.NOT_FOUND
                            : ErrorReason.INVALID_REQUEST,
                    (policy != null && e.kind() != PolicyInputException.Kind.NOT_FOUND ? "policy." : "")
                            + e.getMessage(),
                    Map.of("field", e.field())));
        }
    }
}
