package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Forces a file's bytes, or a directory's entries, to disk. One seam, so that a test can see which
 * files were forced and when; {@link #FILES} is the real one.
 */
@FunctionalInterface
interface Forcer {
    /** {@code fdatasync} a file ({@code metadata} false) or {@code fsync} it, a directory included. */
    void force(Path p, boolean metadata) throws IOException;

    Forcer FILES = (p, metadata) -> {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            ch.force(metadata);
        }
    };
}
