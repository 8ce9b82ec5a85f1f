package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * The payload of {@code slice_create}: the new slice's frontmatter ({@code slice}) and its
 * {@code body} (empty when absent). The frontmatter stays JSON: it is whatever the client gave,
 * written back field for field when the slice is created again.
 */
public record SliceCreatePayload(ObjectNode slice, String body) {
    public static final String OP = "slice_create";

    public SliceCreatePayload {
        Objects.requireNonNull(slice, "slice");
        Objects.requireNonNull(body, "body");
    }
}
