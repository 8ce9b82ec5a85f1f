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
