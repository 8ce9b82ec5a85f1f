package dev.memoryd.daemon.refs;

import java.util.List;
import java.util.Objects;

/**
 * One reference as {@link RefStore#list} reports it: its pointer file, pin, placement, whether it
 * is retired, and the id of its open drift item ({@code driftId}, null when none is open).
 * {@code section} is null when the reference is placed on no section.
 */
public record RefEntry(
        String id,
        String pointer,
        String repo,
        String path,
        String pinnedCommit,
        String blob,
        List<String> placedOn,
        String section,
        boolean retired,
        String driftId) {
    public RefEntry {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(pointer, "pointer");
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(pinnedCommit, "pinnedCommit");
        Objects.requireNonNull(blob, "blob");
        placedOn = List.copyOf(placedOn);
    }
}
