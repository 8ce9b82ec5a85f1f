package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** What the writer adds to every payload, after the op's own fields: {@code decl}, then {@code provenance}. */
final class Payloads {
    private Payloads() {}

    static ObjectNode tail(ObjectNode p, Decl decl, JsonNode provenance) {
        if (decl != null) {
            decl.writeTo(p);
        }
        if (provenance != null) {
            p.set("provenance", provenance.deepCopy());
        }
        return p;
    }
}
