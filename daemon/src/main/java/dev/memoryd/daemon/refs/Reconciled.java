package dev.memoryd.daemon.refs;

import java.util.List;
import java.util.Objects;

/**
 * What {@link RefStore#reconcile} found and recorded: how many live references it {@code checked}
 * and how many were {@code unchanged}, the {@code findings} (references that moved on), the drift
 * items it {@code closed} (files back at their pinned bytes), the references it could not check
 * ({@code problems}), the {@code commit} that recorded it (null when nothing was new) and how long
 * it took.
 */
public record Reconciled(
        int checked,
        int unchanged,
        List<Finding> findings,
        List<String> closed,
        List<Problem> problems,
        String commit,
        long millis) {
    public Reconciled {
        if (checked < 0 || unchanged < 0 || unchanged > checked || millis < 0) {
            throw new IllegalArgumentException(
                    "bad counts: checked " + checked + ", unchanged " + unchanged + ", millis " + millis);
        }
        findings = List.copyOf(findings);
        closed = List.copyOf(closed);
        problems = List.copyOf(problems);
    }

    /**
     * A reference whose file changed, was renamed ({@code newPath}, else null) or deleted since its
     * pin ({@code kind}: {@code ref_changed}, {@code ref_renamed}, {@code ref_deleted}); its drift
     * item ({@code driftId}, null when the reference was re-pinned or retired during the reconcile)
     * and whether this reconcile {@code recorded} it (false: the queue already said the same).
     * {@code commits}: the newest commits that touched it, of {@code commitsTotal}.
     */
    public record Finding(
            String id,
            String pointer,
            String driftId,
            boolean recorded,
            String kind,
            String repo,
            String path,
            String newPath,
            int commitsTotal,
            List<Commit> commits) {
        public Finding {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(pointer, "pointer");
            if (!RefStore.CHANGED.equals(kind) && !RefStore.RENAMED.equals(kind) && !RefStore.DELETED.equals(kind)) {
                throw new IllegalArgumentException("not a reference drift kind: " + kind);
            }
            Objects.requireNonNull(repo, "repo");
            Objects.requireNonNull(path, "path");
            commits = List.copyOf(commits);
        }
    }

    /** A commit that touched a referenced file. */
    public record Commit(String id, String author, String date, String subject) {
        public Commit {
            Objects.requireNonNull(id, "id");
        }
    }

    /** A reference that could not be checked, and why ({@code problem}, a sentence). */
    public record Problem(String id, String repo, String path, String problem) {
        public Problem {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(problem, "problem");
        }
    }
}
