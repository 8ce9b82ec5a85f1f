package dev.memoryd.daemon.branch;

import java.util.Objects;

/**
 * One region changed on both sides of a merge: its file, its name as resolutions name it, and its
 * text in the common base, ours and theirs (null: absent on that side).
 */
public record MergeConflict(String path, String section, String base, String ours, String theirs) {
    public MergeConflict {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(section, "section");
    }
}
