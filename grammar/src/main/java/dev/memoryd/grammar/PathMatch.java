package dev.memoryd.grammar;

import java.util.Objects;

/**
 * The result of matching a {@link RepoPath} against the grammar's path patterns.
 *
 * @param fileType   the matched file type
 * @param userId     the {@code {user_id}} segment
 * @param entityType entity type the file describes (user, part, relationship)
 * @param entityId   the {@code {entity_id}} segment, or the user id for user-level files
 */
public record PathMatch(FileType fileType, String userId, String entityType, String entityId) {
    public PathMatch {
        Objects.requireNonNull(fileType, "fileType");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(entityType, "entityType");
        Objects.requireNonNull(entityId, "entityId");
    }
}
