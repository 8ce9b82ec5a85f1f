package dev.memoryd.daemon.events;

import java.util.Objects;

/**
 * The payload of {@code drift_resolved}: the item's {@code id}, how it was resolved, the
 * maintainer's note and, for a dismissal, the SHA-256 of the text dismissed (each null when absent).
 */
public record DriftResolvedPayload(String id, String resolution, String note, String textSha256) {
    public static final String OP = "drift_resolved";

    public DriftResolvedPayload {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(resolution, "resolution");
    }
}
