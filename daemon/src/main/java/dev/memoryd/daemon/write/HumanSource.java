package dev.memoryd.daemon.write;

import java.util.List;
import java.util.Objects;

/**
 * Where a human's edit that memoryd records came from, recorded as {@code payload.human} of its
 * {@code human_edit} and {@code drift_flagged} events, which {@link HumanCapture} writes (the one
 * writer of that member): the
 * working tree ({@link WorkTree}), commits made with git ({@link Commits}), a {@code replay
 * --onto-latest} that halted ({@link ReplayOntoLatest}), or a maintainer's {@code drift resolve}
 * ({@link DriftResolution}), or the commits that changed a referenced file ({@link GitHistory}).
 * Immutable.
 */
public sealed interface HumanSource {
    /** The wire name of the source, {@code payload.human.source}. */
    String name();

    /**
     * Files as they are on disk: {@code {"source": "work_tree"}}; {@code kept} (null: none) is
     * where a changed copy of a file was kept aside, recorded as {@code kept}.
     */
    record WorkTree(String kept) implements HumanSource {
        public static final WorkTree ON_DISK = new WorkTree(null);

        @Override
        public String name() {
            return "work_tree";
        }
    }

    /** Commits a human made with git, oldest first (none when a git command moved the branch): {@code {"source": "commit", "commits": [...]}}. */
    record Commits(List<Commit> commits) implements HumanSource {
        public Commits {
            commits = List.copyOf(commits);
        }

        @Override
        public String name() {
            return "commit";
        }
    }

    /** One commit: its id, {@code Name <email>} of its author, its author date (ISO-8601) and subject. */
    record Commit(String id, String author, String date, String subject) {
        public Commit {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(author, "author");
            Objects.requireNonNull(date, "date");
            Objects.requireNonNull(subject, "subject");
        }
    }

    /**
     * The commits of repository {@code repo} that changed a referenced file since its pin, newest
     * first, at most a page of them; {@code commitsTotal} counts them all: {@code {"source":
     * "git_history", "repo", "commits_total", "commits": [...]}}.
     */
    record GitHistory(String repo, int commitsTotal, List<Commit> commits) implements HumanSource {
        public GitHistory {
            Objects.requireNonNull(repo, "repo");
            commits = List.copyOf(commits);
        }

        @Override
        public String name() {
            return "git_history";
        }
    }

    /** A {@code replay --onto-latest} that halted on a file: {@code {"source": "replay_onto_latest"}}. */
    record ReplayOntoLatest() implements HumanSource {
        @Override
        public String name() {
            return "replay_onto_latest";
        }
    }

    /** A maintainer's {@code drift resolve} taking the file as it is: {@code {"source": "drift_resolution"}}. */
    record DriftResolution() implements HumanSource {
        @Override
        public String name() {
            return "drift_resolution";
        }
    }
}
