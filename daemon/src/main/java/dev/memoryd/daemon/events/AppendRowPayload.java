package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The payload of {@code append_row}: the slice it appended to and the {@code row}, which stays
 * JSON: a row has whatever shape its slice's rows have, and is appended again as recorded.
 */
public record AppendRowPayload(String sliceId, JsonNode row) {
    public static final String OP = "append_row";

    public AppendRowPayload {
        Objects.requireNonNull(sliceId, "sliceId");
        Objects.requireNonNull(row, "row");
    }
}
