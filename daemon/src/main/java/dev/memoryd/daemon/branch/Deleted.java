package dev.memoryd.daemon.branch;

import java.util.Objects;

/**
 * A branch {@link Branches#delete} retired: its last commit ({@code head}, which records the
 * {@code branch_delete} event {@code eventId}), the ref that keeps it, and its chain's length.
 */
public record Deleted(String name, String head, String retiredRef, String eventId, long chainLines) {
    public Deleted {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(head, "head");
        Objects.requireNonNull(retiredRef, "retiredRef");
        Objects.requireNonNull(eventId, "eventId");
    }
}
