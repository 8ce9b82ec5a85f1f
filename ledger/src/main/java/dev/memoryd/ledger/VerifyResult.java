package dev.memoryd.ledger;

import java.util.Map;

/**
 * Outcome of {@link Verifier#verify}. When {@code ok}, the location fields are null/0. Otherwise
 * they describe the first problem found (chains are checked in branch-name order, each up to its
 * first problem): {@code firstBadFile} relative to the memory root ({@code ledger/...},
 * {@code /}-separated), {@code firstBadLine} 1-based within that file, {@code seq} the seq the
 * line claims (null when unreadable), {@code reason} one of the {@code REASON_*} constants and
 * {@code message} one human sentence. {@code lines} counts every line examined;
 * {@code linesPerChain} the same per branch. Immutable value.
 */
public record VerifyResult(
        boolean ok,
        long lines,
        String firstBadFile,
        long firstBadLine,
        Long seq,
        String reason,
        String message,
        Map<BranchName, Long> linesPerChain) {

    public static final String CHANGED = "changed";
    public static final String REMOVED = "removed";
    public static final String REORDERED = "reordered";
    public static final String DUPLICATED = "duplicated";
    public static final String TRUNCATED = "truncated";
    public static final String SPLICED = "spliced";
    public static final String WRONG_KEY = "wrong_key";
    public static final String BROKEN_PREV = "broken_prev";
    /** A line signed with a key version after a recorded rotation retired that version. */
    public static final String RETIRED_KEY = "retired_key";

    public static final String MALFORMED = "malformed";
    public static final String UNKNOWN_KEY_VERSION = "unknown_key_version";
    /** A branch_fork or branch_merge line whose {@code payload.link} names no such line of that chain. */
    public static final String BROKEN_LINK = "broken_link";

    public VerifyResult {
        linesPerChain = Map.copyOf(linesPerChain);
    }
}
