package dev.memoryd.daemon.write;

import dev.memoryd.grammar.RepoPath;
import java.util.Optional;

/**
 * The writer's view of the drift queue: which memory files wait for a maintainer. Implemented
 * by the queue (a fold over drift events); read on the writer thread between batches.
 */
public interface DriftView {
    /** The open drift item on a path, if any. */
    Optional<Item> openOn(RepoPath path);

    /**
     * Whether a maintainer dismissed drift on this path while it held exactly this text (so the
     * same text is not flagged again).
     */
    boolean dismissed(RepoPath path, String text);

    /**
     * The paths with an open item. A rescan captures them as well as the files on disk and in the
     * branch: a file the branch does not hold (a new file that broke the grammar) that the human
     * then removed, by hand or by moving its directory back, is neither, and its item would stay
     * open for a file that is gone.
     */
    default java.util.Set<RepoPath> openPaths() {
        return java.util.Set.of();
    }

    /** An open item: its id and the drifted text it recorded (null: the file was deleted). */
    record Item(String id, String text) {}

    DriftView NONE = new DriftView() {
        @Override
        public Optional<Item> openOn(RepoPath path) {
            return Optional.empty();
        }

        @Override
        public boolean dismissed(RepoPath path, String text) {
            return false;
        }
    };
}
