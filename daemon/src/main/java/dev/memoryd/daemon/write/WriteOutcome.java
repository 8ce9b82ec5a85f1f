package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.Failure;
import java.util.List;

/** What became of a declaration. Expected refusals are values; I/O failures are exceptions. */
public sealed interface WriteOutcome {
    /**
     * Recorded: events appended and fsynced, files written, one commit on the branch. When the
     * declaration touched sections marked for review, {@code proposal} names the proposal it became
     * (its changes are on branch {@code proposals/<id>}, not on this branch).
     */
    record Committed(String commit, List<EventRef> events, boolean replayed, String proposal) implements WriteOutcome {
        public Committed(String commit, List<EventRef> events, boolean replayed) {
            this(commit, events, replayed, null);
        }
    }

    /**
     * Recorded in the ledger (a {@link Durability#LEDGER} reply): its lines are forced to disk and
     * its files, commit and index follow before the writer takes another batch; a crash before
     * they do is redone from the ledger at the next start. No commit id: it is not yet on the branch.
     */
    record Recorded(List<EventRef> events) implements WriteOutcome {
        public Recorded {
            events = List.copyOf(events);
        }
    }

    /** Every op was valid but none changed a byte: no event, no commit. */
    record Unchanged(String commit) implements WriteOutcome {}

    record Rejected(int opIndex, Failure failure) implements WriteOutcome {}

    record EventRef(String eventId, String token, String afterHash, String path, String section) {}
}
