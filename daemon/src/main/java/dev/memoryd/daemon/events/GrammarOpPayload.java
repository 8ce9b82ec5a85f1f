package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * The payload of an event that applied a grammar op (its event op is the grammar op's name, or an
 * accepted proposal's): the {@code op} as recorded. It stays JSON because ops are as many shapes
 * as the grammar has, and replay parses it with the grammar's own codec after dropping its
 * compare-and-swap hash.
 */
public record GrammarOpPayload(ObjectNode op) {
    public GrammarOpPayload {
        Objects.requireNonNull(op, "op");
    }

    /** {@code op.section}: the section the op names, or null when it names none as text. */
    public String section() {
        return op.path("section").isTextual() ? op.get("section").asText() : null;
    }
}
