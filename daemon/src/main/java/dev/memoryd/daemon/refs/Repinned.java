package dev.memoryd.daemon.refs;

import java.util.Objects;

/**
 * A reference {@link RefStore#repin} moved: its {@code path} now ({@code previousPath} before a
 * rename, else the same), its new pin, and the {@code commit} that recorded it (null when the pin
 * was current and no drift item was open: nothing was recorded).
 */
public record Repinned(String id, String path, String previousPath, String pinnedCommit, String blob, String commit) {
    public Repinned {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(previousPath, "previousPath");
        Objects.requireNonNull(pinnedCommit, "pinnedCommit");
        Objects.requireNonNull(blob, "blob");
    }
}
