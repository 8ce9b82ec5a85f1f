package dev.memoryd.daemon.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.RepoPath;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A change the writer applies, in order, against the files as the declarations before it left
 * them: grammar ops, or an extension's change (a relayed message, a conversation turn). It must
 * be deterministic given (files, now) and must not touch disk itself: recovery redoes it from
 * its own events after a crash.
 */
public interface Mutation {
    Result apply(FileSource files, Instant now);

    /** What a mutation did: refused (nothing recorded), or new file texts plus its events. */
    sealed interface Result {}

    record Refused(int opIndex, Failure failure) implements Result {}

    /**
     * {@code changed=false} means nothing to record (no event, no commit). Events are recorded in
     * order; file texts are the final text per touched path. Paths in {@code commitOnly} are
     * committed with their new text but the working tree is left as it is (a human's capture: the
     * file on disk is already the human's, and may have moved on since).
     */
    record Done(
            Map<RepoPath, String> newContents,
            List<EventSpec> events,
            boolean changed,
            java.util.Set<RepoPath> commitOnly)
            implements Result {
        public Done {
            commitOnly = java.util.Set.copyOf(commitOnly);
        }

        public Done(Map<RepoPath, String> newContents, List<EventSpec> events, boolean changed) {
            this(newContents, events, changed, java.util.Set.of());
        }
    }

    /** One ledger event of a mutation; {@code path} may be null for events that touch no file. */
    record EventSpec(
            String op,
            RepoPath path,
            String sectionAnchor,
            String beforeHash,
            String afterHash,
            ObjectNode payload,
            List<String> evidenceRefs,
            String summary) {}

    /** The distinct one-line summaries of {@code specs}, in order: a commit's subject. */
    static List<String> summaries(List<EventSpec> specs) {
        return specs.stream().map(EventSpec::summary).distinct().toList();
    }
}
