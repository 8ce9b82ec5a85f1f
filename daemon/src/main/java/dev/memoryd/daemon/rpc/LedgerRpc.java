package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Replies.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.write.WriteOutcome;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code ledger} group: {@code ledger.verify}, {@code ledger.rotate_key}. */
final class LedgerRpc implements Namespace {
    private final ServingRoot svc;

    LedgerRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "ledger";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("ledger.verify", p -> {
            only(p);
            return Dispatcher.verifyJson(svc.reads().verify());
        });
        r.put("ledger.rotate_key", p -> {
            only(p, "actor");
            WriteOutcome.Committed c = (WriteOutcome.Committed) await(svc.rotateKey(str(p, "actor", false)));
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("commit", c.commit());
            o.put("event_id", c.events().get(0).eventId());
            return o;
        });
        return r;
    }
}
