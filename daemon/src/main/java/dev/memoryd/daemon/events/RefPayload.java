package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * The payload of {@code ref_add}, {@code ref_repin} and {@code ref_retire}: the pointer file's
 * {@code slice} frontmatter as it was written. It stays JSON: replay renders the pointer file
 * from it field for field, unknown fields included, so the file comes back byte for byte.
 */
public record RefPayload(ObjectNode slice) {
    public static final String OP_ADD = "ref_add";
    public static final String OP_REPIN = "ref_repin";
    public static final String OP_RETIRE = "ref_retire";

    public RefPayload {
        Objects.requireNonNull(slice, "slice");
    }
}
