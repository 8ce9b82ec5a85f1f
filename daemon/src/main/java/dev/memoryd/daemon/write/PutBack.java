package dev.memoryd.daemon.write;

import java.time.Instant;
import java.util.Objects;

/**
 * The last memory file memoryd wrote back over an older version that a git command had put in
 * the working tree without a commit ({@code git checkout <rev> -- FILE}, a stash's rewrite), and
 * how many it has written back since the daemon started: what {@code ping} and {@code status}
 * show, since the human who ran the command is told nowhere else. Immutable.
 *
 * @param path the file, relative to the root
 * @param at when it was written back
 * @param count how many files were written back since the start, this one included (at least 1)
 */
public record PutBack(String path, Instant at, long count) {
    public PutBack {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(at, "at");
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, not " + count);
        }
    }

    /** The next one after {@code last} (null: the first). */
    static PutBack after(PutBack last, String path, Instant at) {
        return new PutBack(path, at, last == null ? 1 : last.count + 1);
    }
}
