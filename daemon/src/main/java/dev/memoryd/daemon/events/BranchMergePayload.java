package dev.memoryd.daemon.events;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What readers take from a {@code branch_merge} payload: the commit merged in
 * ({@code merge.from_commit}) and the merged texts ({@code files}: path to text, null for a file
 * the merge deleted), in recorded order.
 */
public record BranchMergePayload(String fromCommit, Map<String, String> files) {
    public static final String OP = "branch_merge";

    public BranchMergePayload {
        Objects.requireNonNull(fromCommit, "fromCommit");
        files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
    }
}
