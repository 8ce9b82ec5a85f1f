package dev.memoryd.grammar;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Result of {@link Declarations#apply}: all ops applied, or the first rejection. */
public sealed interface ApplyResult {

    /**
     * Every op applied.
     *
     * @param outcomes    one per op, in order
     * @param newContents final text of each changed file, in first-touched order (empty if nothing changed)
     * @param changed     whether any file changed
     * @param crlf        the changed files written with CRLF line ends because their text had them
     */
    record Applied(List<OpOutcome> outcomes, Map<RepoPath, String> newContents, boolean changed, Set<RepoPath> crlf)
            implements ApplyResult {
        public Applied {
            outcomes = List.copyOf(outcomes);
            newContents = Collections.unmodifiableMap(new LinkedHashMap<>(newContents));
            crlf = Set.copyOf(crlf);
            if (!newContents.keySet().containsAll(crlf)) {
                throw new IllegalArgumentException("a CRLF file that is not among the changed ones: " + crlf);
            }
        }

        public Applied(List<OpOutcome> outcomes, Map<RepoPath, String> newContents, boolean changed) {
            this(outcomes, newContents, changed, Set.of());
        }
    }

    /**
     * The declaration was rejected as a whole; nothing is to be written.
     *
     * @param opIndex index of the offending op in the declaration
     * @param reason  the error reason
     * @param message human-readable explanation
     * @param details structured extras, e.g. {@code current_hash}, {@code limit}, {@code actual}
     */
    record Rejected(int opIndex, Reason reason, String message, Map<String, Object> details) implements ApplyResult {
        public Rejected {
            details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
        }
    }
}
