package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * Which declaration an event belongs to ({@code payload.decl}): the declaration's id (its first
 * event's id), the event's {@code index} in it and the declaration's event {@code count}.
 */
public record Decl(String id, int index, int count) {
    public Decl {
        Objects.requireNonNull(id, "id");
        if (index < 0 || count < 1 || index >= count) {
            throw new IllegalArgumentException("decl index " + index + " of " + count);
        }
    }

    /** The declaration of an event that is one on its own. */
    public static Decl single(String eventId) {
        return new Decl(eventId, 0, 1);
    }

    void writeTo(ObjectNode payload) {
        payload.putObject("decl").put("id", id).put("index", index).put("count", count);
    }

    /** {@code payload.decl}, or null when absent or not one. */
    static Decl of(JsonNode payload) {
        JsonNode d = payload.get("decl");
        if (d == null
                || !d.path("id").isTextual()
                || !d.path("index").canConvertToInt()
                || !d.path("count").canConvertToInt()) {
            return null;
        }
        try {
            return new Decl(
                    d.get("id").asText(), d.get("index").asInt(), d.get("count").asInt());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
