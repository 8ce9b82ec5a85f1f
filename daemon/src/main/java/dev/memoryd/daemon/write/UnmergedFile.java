package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.grammar.RepoPath;
import java.util.Map;

/**
 * A memory file that git's index holds in conflict (stages 1-3) while its working copy differs
 * from the text memoryd recorded: a {@code git stash pop}, {@code git apply --3way} or {@code git
 * checkout -m} stopped on it, or a merge whose {@code MERGE_HEAD} git has not written yet. Its
 * conflict markers are git's, not anyone's words, so memoryd neither captures the file nor writes
 * over it until git holds it merged again (the human's {@code git add}, or a checkout of one
 * side); then whatever it holds is captured as the human's edit.
 *
 * <p>Thrown by the writer's read of the file for a batch, and confined to what read it: a
 * declaration that reads the file is refused with {@link #refusal()}, a capture leaves the file
 * out, and the batch's other work goes on. Immutable.
 */
final class UnmergedFile extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient RepoPath path;

    UnmergedFile(RepoPath path) {
        super(path.value() + " is in conflict in git's index", null, false, false);
        this.path = path;
    }

    RepoPath path() {
        return path;
    }

    /** The refusal of a declaration that read the file: nothing was written, and what ends the wait. */
    Failure refusal() {
        String p = path.value();
        return new Failure(
                ErrorReason.UNAVAILABLE,
                p + " is in conflict in git's index (a git stash pop, git apply --3way or merge stopped on it);"
                        + " its conflict markers are git's, and nothing was written. memoryd writes it again once"
                        + " git holds it merged: resolve it and git add " + p + ", or drop the other side (git"
                        + " checkout HEAD -- " + p + "); retry then",
                Map.of("unmerged", p));
    }
}
