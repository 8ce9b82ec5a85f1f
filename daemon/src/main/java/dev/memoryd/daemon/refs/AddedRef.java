package dev.memoryd.daemon.refs;

import java.util.Objects;

/**
 * A reference {@link RefStore#add} recorded: its pointer, where it is pinned ({@code pinnedCommit},
 * the file's {@code blob} and its bytes' {@code hash}), and the {@code commit} and {@code eventId}
 * that recorded it.
 */
public record AddedRef(
        String id,
        String pointer,
        String uri,
        String repo,
        String path,
        String pinnedCommit,
        String blob,
        String hash,
        String commit,
        String eventId) {
    public AddedRef {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(pointer, "pointer");
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(pinnedCommit, "pinnedCommit");
        Objects.requireNonNull(blob, "blob");
        Objects.requireNonNull(hash, "hash");
        Objects.requireNonNull(commit, "commit");
        Objects.requireNonNull(eventId, "eventId");
    }
}
