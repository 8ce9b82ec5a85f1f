package dev.memoryd.daemon.branch;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a sync's merge of the remote's head did to one local branch ({@link Branches#syncMerge}).
 * Nothing recorded in {@link Skipped}, {@link UpToDate}, {@link Conflicted}, {@link SpecViolation}.
 */
public sealed interface SyncMerged {
    /** The local branch has no chain of this root (made with git, or a proposal branch). */
    record Skipped(String message) implements SyncMerged {}

    /** The branch holds everything theirs does. */
    record UpToDate() implements SyncMerged {}

    /**
     * Only other replicas' ledger lines were new, committed alone as {@code commit}; {@code ahead}
     * when the branch already contained theirs (no merge of theirs was tried).
     */
    record Chains(String commit, boolean ahead) implements SyncMerged {
        public Chains {
            Objects.requireNonNull(commit, "commit");
        }
    }

    /** A merge {@code commit} recording {@code branch_merge} event {@code eventId}. */
    record Committed(String commit, String eventId) implements SyncMerged {
        public Committed {
            Objects.requireNonNull(commit, "commit");
            Objects.requireNonNull(eventId, "eventId");
        }
    }

    /** Regions changed on both sides and not resolved. */
    record Conflicted(List<MergeConflict> conflicts, String message) implements SyncMerged {
        public Conflicted {
            conflicts = List.copyOf(conflicts);
            Objects.requireNonNull(message, "message");
        }
    }

    /** The merged chunk files would break a spec rule; {@code violation}: rule, chunk, chunk_name?, scope. */
    record SpecViolation(String message, Map<String, String> violation) implements SyncMerged {
        public SpecViolation {
            Objects.requireNonNull(message, "message");
            violation = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(violation));
        }
    }
}
