package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import org.eclipse.jgit.lib.ObjectId;

/**
 * What a compare-and-swap of a branch ref did, as JGit's {@code RefUpdate.Result} says it: the
 * ref {@link Result#MOVED} to its target, had {@link Result#NO_CHANGE} to make, was
 * {@link Result#LOCKED} by another git command ({@link #lock} exists), or was
 * {@link Result#MOVED_UNDER_US} by one (it holds {@link #current} instead of the expected value;
 * the store's head and tree then follow it). I/O failures stay exceptions.
 *
 * @param result  what happened
 * @param ref     the full ref name
 * @param current the ref's value after the attempt (null: absent)
 * @param lock    the ref's lock file
 */
public record RefMove(Result result, String ref, ObjectId current, Path lock) {
    /** The outcomes of a ref move. */
    public enum Result {
        MOVED,
        NO_CHANGE,
        LOCKED,
        MOVED_UNDER_US
    }

    public RefMove {
        java.util.Objects.requireNonNull(result, "result");
        java.util.Objects.requireNonNull(ref, "ref");
        java.util.Objects.requireNonNull(lock, "lock");
    }

    /** Whether the ref holds the target now (it moved, or there was nothing to move). */
    public boolean done() {
        return result == Result.MOVED || result == Result.NO_CHANGE;
    }

    /**
     * This move when {@link #done}; otherwise the IOException a failed batch reports (the writer
     * has no better answer for a git command racing it than failing the batch, which is undone).
     */
    public RefMove orThrow() throws IOException {
        return switch (result) {
            case MOVED, NO_CHANGE -> this;
            case LOCKED ->
                throw new IOException(
                        "cannot lock " + ref + ": " + lock + " exists (another git process?)",
                        new FileAlreadyExistsException(lock.toString()));
            case MOVED_UNDER_US ->
                throw new IOException("branch " + ref + " moved under the writer (now "
                        + (current == null ? "absent" : current.name()) + ")");
        };
    }
}
