package dev.memoryd.daemon.events;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What readers take from a {@code branch_merge} payload: what was merged in ({@code merge.from},
 * a branch name or commit as given) and its commit ({@code merge.from_commit}), and the merged
 * texts ({@code files}: path to text, null for a file the merge deleted), in recorded order, and
 * for each memory file the sections whose text it changed ({@code changed}: path to region keys,
 * {@code _head} or anchors; empty for a merge recorded before merges said so).
 */
public record BranchMergePayload(
        String from, String fromCommit, Map<String, String> files, Map<String, List<String>> changed) {
    public static final String OP = "branch_merge";

    public BranchMergePayload {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(fromCommit, "fromCommit");
        files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
        Map<String, List<String>> c = new LinkedHashMap<>();
        changed.forEach((p, keys) -> c.put(p, List.copyOf(keys)));
        changed = Collections.unmodifiableMap(c);
    }

    /** Whether this merge changed section {@code anchor} of {@code path} (as it recorded). */
    public boolean changed(String path, String anchor) {
        return changed.getOrDefault(path, List.of()).contains(anchor);
    }
}
