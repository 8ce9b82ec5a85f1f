package dev.memoryd.daemon.write;

import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import java.time.Instant;
import java.util.Optional;

/**
 * A mutation that can only be decided on the writer thread, against what the writer knows at
 * that point of the batch: the recorded text of each memory file (what replaying the ledger
 * gives), the file on disk, and the drift queue. Human-edit captures and drift resolutions are
 * contextual. The writer calls {@link #bind} and applies the mutation it returns.
 */
public interface Contextual extends Mutation {
    /** What the writer knows at this point of the batch. */
    interface Context {
        /** The recorded text of a file: the branch head's, plus this batch's earlier declarations. */
        Optional<String> recorded(RepoPath p);

        /** The file on disk as this batch first read it (or will leave it, after its earlier declarations). */
        Optional<String> disk(RepoPath p);

        DriftView drift();

        /**
         * Why the human's text of {@code p} that this batch read is not what they saved (bytes that
         * are not UTF-8, shown with U+FFFD), or empty: such a text is drift, never an edit.
         */
        default Optional<String> undecodable(RepoPath p) {
            return Optional.empty();
        }

        /** Whether {@code p} is a symbolic link on disk (its text is then {@link #undecodable} too). */
        default boolean isLink(RepoPath p) {
            return false;
        }

        /** A new unique id (a ULID). */
        String newId();

        Grammar grammar();

        SectionHasher hasher();
    }

    Mutation bind(Context c);

    @Override
    default Result apply(FileSource files, Instant now) {
        throw new IllegalStateException("a contextual mutation is bound by the writer before it is applied");
    }
}
