package dev.memoryd.daemon.write;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The one writer of a {@link Provenance}'s JSON form: what an event's {@code payload.provenance}
 * and a JSONL row's {@code _meta.provenance} record, and what a reply echoes as recorded. Stateless.
 */
public final class ProvenanceJson {
    private ProvenanceJson() {}

    /** Members in the order of the spec's table; absent ones left out. */
    public static ObjectNode of(Provenance p) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("agent", p.agent());
        if (p.session() != null) {
            o.put("session", p.session());
        }
        if (p.source() != null) {
            o.put("source", p.source());
        }
        if (p.confidence() != null) {
            // An integral value as an integer: the ledger's RFC 8785 form writes 1.0 as 1, which replay
            // reads back as an integer, so a row holding 1.0 would not replay to its own bytes.
            if (p.confidence() == Math.rint(p.confidence())) {
                o.put("confidence", p.confidence().longValue());
            } else {
                o.put("confidence", p.confidence());
            }
        }
        if (p.context() != null) {
            o.put("context", p.context());
        }
        return o;
    }
}
