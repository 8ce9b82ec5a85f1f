package dev.memoryd.daemon.refs;

import java.util.List;
import java.util.Objects;

/**
 * What {@link RefStore#add} is asked to reference: {@code path} (relative to the repository's top,
 * or absolute inside it) in {@code repo} (an absolute path; null: the memory repository), placed
 * on memory files or slice ids ({@code placedOn}, at least one), optionally on one
 * {@code section} of the one memory file it is placed on. {@code actor} null: the default.
 * Whether the path, repository and placement exist is the store's question, not this record's.
 */
public record NewRef(String path, String repo, String section, List<String> placedOn, String actor) {
    public NewRef {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(placedOn, "placedOn");
        if (placedOn.isEmpty()) {
            throw new IllegalArgumentException("placed_on needs at least one memory file or slice id");
        }
        placedOn = List.copyOf(placedOn); // rejects null entries
    }
}
