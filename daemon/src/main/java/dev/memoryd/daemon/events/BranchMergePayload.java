package dev.memoryd.daemon.events;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What readers take from a {@code branch_merge} payload: what was merged in ({@code merge.from},
 * a branch name or commit as given) and its commit ({@code merge.from_commit}), and the merged
 * texts ({@code files}: path to text, null for a file the merge deleted), in recorded order.
 */
public record BranchMergePayload(String from, String fromCommit, Map<String, String> files) {
    public static final String OP = "branch_merge";

    public BranchMergePayload {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(fromCommit, "fromCommit");
        files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
    }
}
