package dev.memoryd.grammar;

import java.util.Optional;

/** Read access to the current files, supplied by the caller so the grammar stays free of I/O. */
@FunctionalInterface
public interface FileSource {
    /** The current text of a file, or empty if it does not exist. */
    Optional<String> read(RepoPath path);
}
