package dev.memoryd.daemon.write;

import java.time.Instant;
import java.util.Objects;

/** A memory file the human staged, left for their commit since {@code since} ({@link StagedEdits}). */
public record StagedFile(String path, Instant since) {
    public StagedFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(since, "since");
    }

    /** When a capture records it even without a commit. */
    public Instant capturedBy() {
        return since.plus(StagedEdits.WAIT);
    }
}
