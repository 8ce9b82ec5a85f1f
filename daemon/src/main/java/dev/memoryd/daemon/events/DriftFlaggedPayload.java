package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The payload of {@code drift_flagged}: the item's {@code id}, {@code kind} and {@code reason},
 * the drifted {@code text} (null: the file was deleted or the item is not about a text). The
 * lint {@code problems} and the {@code human} source (a human's edit, or the commits that moved a
 * referenced file) differ by kind and are shown to maintainers as recorded, so they stay JSON: as
 * recorded, a missing node when absent.
 */
public record DriftFlaggedPayload(
        String id, String kind, String reason, String text, JsonNode problems, JsonNode human) {
    public static final String OP = "drift_flagged";

    public DriftFlaggedPayload {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(problems, "problems");
        Objects.requireNonNull(human, "human");
    }
}
