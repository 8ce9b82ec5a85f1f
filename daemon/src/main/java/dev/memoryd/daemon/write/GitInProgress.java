package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.RepositoryState;

/**
 * A git command that stopped half-way in the working tree and waits for the human: a merge, a
 * cherry-pick or a revert with conflicts (or run with {@code --no-commit}), a rebase, a {@code git
 * am}. Until it is concluded or aborted, the working tree holds git's presentation of it, conflict
 * markers and merged files not yet committed, not a human's edit, and the index holds its
 * unmerged entries: memoryd neither captures those files nor writes, since a capture would record
 * conflict markers as the human's words and commit them on the branch, and a commit would stage
 * the conflicted file as resolved (after which {@code git merge --abort} keeps the markers).
 * Writes resume when git has finished; the human's conclusion is captured as their commit.
 *
 * <p>Told by the files git keeps in its directory while the command waits ({@code MERGE_HEAD},
 * {@code CHERRY_PICK_HEAD}, {@code REVERT_HEAD}, {@code rebase-merge/}, {@code rebase-apply/}),
 * read by JGit's {@link Repository#getRepositoryState()}. Immutable.
 */
record GitInProgress(String operation, String conclude, String abort) {
    /** The command git waits on in {@code repo}'s working tree, if any. */
    static Optional<GitInProgress> of(Repository repo) {
        RepositoryState state = repo.getRepositoryState();
        return Optional.ofNullable(
                switch (state) {
                    case MERGING ->
                        new GitInProgress("merge", "resolve the conflicts, git add, git commit", "git merge --abort");
                    case MERGING_RESOLVED -> new GitInProgress("merge", "git commit", "git merge --abort");
                    case CHERRY_PICKING, CHERRY_PICKING_RESOLVED ->
                        new GitInProgress("cherry-pick", "git cherry-pick --continue", "git cherry-pick --abort");
                    case REVERTING, REVERTING_RESOLVED ->
                        new GitInProgress("revert", "git revert --continue", "git revert --abort");
                    case REBASING, REBASING_REBASING, REBASING_MERGE, REBASING_INTERACTIVE ->
                        new GitInProgress("rebase", "git rebase --continue", "git rebase --abort");
                    case APPLY -> new GitInProgress("am", "git am --continue", "git am --abort");
                    case SAFE, BARE, BISECTING -> null;
                });
    }

    /** The refusal of a batch while the command waits: nothing was written, and what ends the wait. */
    Failure refusal() {
        return new Failure(
                ErrorReason.UNAVAILABLE,
                "git is in the middle of " + (operation.equals("am") ? "git am" : "a " + operation)
                        + " in the working tree; nothing was written."
                        + " memoryd writes again once it is concluded (" + conclude + ") or aborted (" + abort
                        + "): retry then",
                Map.of("git_in_progress", operation));
    }
}
