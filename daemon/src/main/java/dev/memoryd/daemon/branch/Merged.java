package dev.memoryd.daemon.branch;

import java.util.List;
import java.util.Objects;

/** What a {@link Branches#merge} did: recorded a merge, found nothing to merge, or found conflicts (nothing recorded). */
public sealed interface Merged {
    /** A two-parent {@code commit} recording {@code branch_merge} event {@code eventId}. */
    record Committed(String commit, String eventId) implements Merged {
        public Committed {
            Objects.requireNonNull(commit, "commit");
            Objects.requireNonNull(eventId, "eventId");
        }
    }

    /** The source was merged already; {@code commit} is the target's head. */
    record AlreadyMerged(String commit, String message) implements Merged {
        public AlreadyMerged {
            Objects.requireNonNull(message, "message");
        }
    }

    /** Regions changed on both sides and not resolved; nothing recorded. */
    record Conflicted(List<MergeConflict> conflicts, String message) implements Merged {
        public Conflicted {
            conflicts = List.copyOf(conflicts);
            if (conflicts.isEmpty()) {
                throw new IllegalArgumentException("a conflicted merge names at least one conflict");
            }
            Objects.requireNonNull(message, "message");
        }
    }
}
