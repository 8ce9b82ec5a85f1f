package dev.memoryd.daemon.branch;

import java.util.Objects;

/**
 * A branch {@link Branches#create} made: its {@code head} (the fork commit), what it was made
 * {@code from} (a branch name or a commit, as given) and that commit, the {@code branch_fork}
 * event, and the chain line the from-commit records ({@code link}; null when it records none).
 */
public record Forked(String name, String head, String from, String fromCommit, String eventId, Link link) {
    public Forked {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(head, "head");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(fromCommit, "fromCommit");
        Objects.requireNonNull(eventId, "eventId");
    }

    /** A line of a ledger chain: the chain's branch, the line's sequence number and hash. */
    public record Link(String branch, long seq, String lineHash) {
        public Link {
            Objects.requireNonNull(branch, "branch");
            Objects.requireNonNull(lineHash, "lineHash");
        }
    }
}
