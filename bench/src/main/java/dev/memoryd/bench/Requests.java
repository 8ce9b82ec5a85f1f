package dev.memoryd.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;

/** The requests every scenario sends: the bench user and its parts, a declaration, and the check of a reply. */
final class Requests {
    private Requests() {}

    /** Ops creating the user {@code bench} and its parts {@code part-0} .. {@code part-(parts-1)}. */
    static ArrayNode createOps(int parts) {
        ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
        ops.addObject()
                .put("op", "create_entity")
                .put("user_id", "bench")
                .put("entity_type", "user")
                .put("title", "Bench user");
        for (int i = 0; i < parts; i++) {
            ops.addObject()
                    .put("op", "create_entity")
                    .put("user_id", "bench")
                    .put("entity_type", "part")
                    .put("entity_id", "part-" + i)
                    .put("title", "Part " + i);
        }
        return ops;
    }

    /** A {@code write}'s params: {@code ops} by the actor {@code bench}. */
    static ObjectNode decl(String rationale, ArrayNode ops) {
        ObjectNode d = JsonRpc.MAPPER.createObjectNode();
        d.set("ops", ops);
        d.put("rationale", rationale);
        d.put("actor", "bench");
        return d;
    }

    /**
     * {@code reply} if it carries a result.
     *
     * @throws IOException when the daemon refused the request (or sent no reply): a benchmark that
     *     measured refusals would measure nothing
     */
    static JsonNode check(JsonNode reply) throws IOException {
        if (reply == null || !reply.has("result")) {
            throw new IOException("the daemon refused: " + reply);
        }
        return reply;
    }
}
