package dev.memoryd.daemon.write;

import java.util.List;

import dev.memoryd.daemon.Failure;

/** What became of a declaration. Expected refusals are values; I/O failures are exceptions. */
public sealed interface WriteOutcome {
  /** Recorded: events appended and fsynced, files written, one commit on the branch. */
  record Committed(String commit, List<EventRef> events, boolean replayed) implements WriteOutcome {}

  /** Every op was valid but none changed a byte: no event, no commit. */
  record Unchanged(String commit) implements WriteOutcome {}

  record Rejected(int opIndex, Failure failure) implements WriteOutcome {}

  record EventRef(String eventId, String token, String afterHash, String path, String section) {}
}
