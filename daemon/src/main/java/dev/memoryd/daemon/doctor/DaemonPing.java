package dev.memoryd.daemon.doctor;

/**
 * What the client-side commands ({@code status}, {@code doctor}) read of a daemon's {@code ping}
 * reply, parsed once by {@link DaemonProbe}. A member the reply lacks is null (or 0 for a count),
 * so a command says what it knows of a daemon of another version instead of failing. Immutable.
 *
 * @param head the checked-out branch's head commit, null before the first commit
 * @param uptimeMs {@code runtime.uptime_ms}
 */
public record DaemonPing(String version, String branch, String head, long uptimeMs, Writer writer, Watcher watcher) {
    public DaemonPing {
        java.util.Objects.requireNonNull(writer, "writer");
        java.util.Objects.requireNonNull(watcher, "watcher");
    }

    /**
     * The writer's health: {@code state} ({@code ok}, {@code failing}, {@code unsettled}, {@code
     * stopped}), its failures since start, and the last error with when it was. {@code lastError}
     * null: no error reported (then {@code lastErrorAt} is null too); {@code lastErrorAt} may be
     * null beside an error when the daemon did not say when. {@code gitInProgress}: the git command
     * ({@code merge}, {@code rebase}, ...) that waits half-way in the working tree while writes are
     * refused for it, else null. {@code lineEnds}: the setting by which git would convert memory
     * files' line ends while writes are refused for it, else null. {@code indexFormat}: {@code
     * split} or {@code sparse} while git's index is in that form and writes are refused for it,
     * else null. {@code unmerged}: memory files
     * git's index holds in conflict, which memoryd neither captures nor writes until they are
     * merged (empty: none). {@code staged}: memory files the human staged, which the watcher
     * leaves for their commit until {@link Staged#capturedBy} (empty: none). {@code
     * putBack}: the last file written back over an older version a git command put in the working
     * tree without a commit, else null.
     */
    public record Writer(
            String state,
            long failures,
            String lastError,
            String lastErrorAt,
            String gitInProgress,
            String lineEnds,
            String indexFormat,
            java.util.List<String> unmerged,
            java.util.List<Staged> staged,
            PutBack putBack) {
        public Writer {
            unmerged = java.util.List.copyOf(unmerged);
            staged = java.util.List.copyOf(staged);
        }
    }

    /** A staged file waiting for its commit: since when, and when it is captured without one (ISO-8601 as the daemon gave them). */
    public record Staged(String path, String since, String capturedBy) {}

    /** A file written back: its path, when ({@code at}, ISO-8601 as the daemon gave it) and how many since the start. */
    public record PutBack(String path, String at, long count) {}

    /** The watcher's {@code state} ({@code running}, {@code starting}, {@code off}, or a failure) and its last error. */
    public record Watcher(String state, String lastError) {}
}
