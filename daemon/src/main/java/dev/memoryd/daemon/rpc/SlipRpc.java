package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.intParam;
import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Replies.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.slip.SlipRelay;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.grammar.slip.Nslip;
import dev.memoryd.grammar.slip.SlipJson;
import dev.memoryd.grammar.slip.SlipJsonParse;
import dev.memoryd.grammar.slip.SlipMessage;
import dev.memoryd.grammar.slip.SlipParse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/** The {@code slip} group: the SLIP relay between agents. */
final class SlipRpc implements Namespace {
    private final ServingRoot svc;

    SlipRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "slip";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("slip.send", this::send);
        r.put("slip.recv", this::recv);
        return r;
    }

    private JsonNode send(ObjectNode p) throws BadRequest {
        only(p, "message", "actor");
        JsonNode m = p.get("message");
        SlipMessage msg;
        if (m != null && m.isTextual()) {
            SlipParse r = Nslip.decode(m.asText());
            if (r instanceof SlipParse.Error e) {
                throw new BadRequest(new Failure(
                        ErrorReason.INVALID_REQUEST,
                        "message: nSLIP " + e.reason() + " at position " + e.position() + ": " + e.message(),
                        Failure.ordered("position", e.position(), "slip_reason", e.reason())));
            }
            msg = ((SlipParse.Ok) r).message();
        } else if (m != null && m.isObject()) {
            SlipJsonParse r = SlipJson.parse(m);
            if (r instanceof SlipJsonParse.Error e) {
                throw new BadRequest(new Failure(
                        ErrorReason.INVALID_REQUEST,
                        "message." + e.fieldPath() + ": " + e.message(),
                        Failure.ordered("field", "message." + e.fieldPath(), "slip_reason", e.reason())));
            }
            msg = ((SlipJsonParse.Ok) r).message();
        } else {
            throw new BadRequest(
                    ErrorReason.INVALID_REQUEST, "message must be an nSLIP string or the JSON form of a SLIP message");
        }
        WriteOutcome out = await(svc.slip().send(msg, str(p, "actor", false)));
        WriteOutcome.Committed c = (WriteOutcome.Committed) out;
        ObjectNode r = JsonNodeFactory.instance.objectNode();
        r.put("event_id", c.events().get(0).eventId());
        r.put("token", c.events().get(0).token());
        r.put("nslip", Nslip.encode(msg));
        r.put("commit", c.commit());
        return r;
    }

    private JsonNode recv(ObjectNode p) throws BadRequest {
        only(p, "agent", "wait_ms", "max");
        if (!p.has("agent")) {
            throw new BadRequest(ErrorReason.INVALID_REQUEST, "missing parameter 'agent'");
        }
        long agent = intParam(p, "agent", 0, Integer.MAX_VALUE);
        int waitMs = p.has("wait_ms") ? intParam(p, "wait_ms", 0, 300_000) : 0;
        int max = p.has("max") ? intParam(p, "max", 1, 10_000) : 100;
        List<SlipRelay.Queued> got;
        try {
            got = svc.slip().recv(agent, waitMs, max);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BadRequest(ErrorReason.UNAVAILABLE, "interrupted while waiting for messages");
        } catch (ExecutionException e) {
            throw new BadRequest(
                    ErrorReason.UNAVAILABLE,
                    "delivery was not recorded; the messages stay queued: "
                            + e.getCause().getMessage());
        }
        ObjectNode r = JsonNodeFactory.instance.objectNode();
        ArrayNode msgs = r.putArray("messages");
        for (SlipRelay.Queued q : got) {
            ObjectNode o = msgs.addObject();
            o.put("event_id", q.eventId());
            o.put("nslip", q.nslip());
            ObjectNode j = SlipJson.toJson(q.message());
            o.put("act", j.get("act").asText());
            o.put("frame", j.get("frame").asText());
            o.set("conv_id", j.get("conv_id"));
            o.set("turn", j.get("turn"));
            o.set("src", j.get("src"));
            o.set("dst", j.get("dst"));
            o.set("slots", j.get("slots"));
        }
        return r;
    }
}
