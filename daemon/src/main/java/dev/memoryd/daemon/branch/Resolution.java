package dev.memoryd.daemon.branch;

import dev.memoryd.grammar.RepoPath;
import java.util.List;
import java.util.Objects;

/**
 * A caller's resolution of one conflicting region ({@code section}: its heading or anchor) of one
 * file: {@code take} {@code ours}, {@code theirs}, or {@code content} with {@code content} the
 * region's new text (null: the region removed). Whether it matches a conflict is the merge's
 * question, not this record's.
 */
public record Resolution(String path, String section, String take, String content) {
    /** The values {@link #take} may have. */
    public static final List<String> TAKES = List.of("ours", "theirs", "content");

    public Resolution {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(take, "take");
        if (!TAKES.contains(take)) {
            throw new IllegalArgumentException("take must be ours, theirs or content, not '" + take + "'");
        }
        if (!take.equals("content") && content != null) {
            throw new IllegalArgumentException("content is only for take: content");
        }
        RepoPath.of(path); // refuses a path no file of a root can have
    }
}
