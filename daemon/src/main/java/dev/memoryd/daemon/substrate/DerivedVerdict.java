package dev.memoryd.daemon.substrate;

import java.util.List;
import java.util.Objects;

/**
 * The verdict on one derived chunk (see {@link DerivedStaleness}): {@code sources} the scope ids
 * checked; {@code changedSince} the commits that changed them, oldest first (at most
 * {@link DerivedStaleness#MAX_LISTED}); {@code changedTotal} how many there are in all;
 * {@code reason} why it is stale without a changing commit, else null.
 */
public record DerivedVerdict(
        String sourceCommit,
        List<String> sources,
        boolean stale,
        List<String> changedSince,
        int changedTotal,
        String reason) {
    public DerivedVerdict {
        Objects.requireNonNull(sourceCommit, "sourceCommit");
        sources = List.copyOf(sources);
        changedSince = List.copyOf(changedSince);
        if (changedTotal < changedSince.size()) {
            throw new IllegalArgumentException("changedTotal counts at least the commits listed");
        }
    }

    /** Whether more commits changed the sources than {@link #changedSince} lists. */
    public boolean moreThanListed() {
        return changedTotal > changedSince.size();
    }
}
