package dev.memoryd.daemon.write;

import dev.memoryd.grammar.RepoPath;
import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * A capture of memory files the watcher saw change on disk ({@link HumanIntake#seenChanging}),
 * bound as {@code capture} is, and the look a batch of nothing else gets before the branch's lock
 * is taken ({@link #nothingToCapture}): most such events are memoryd's own writes, and a lock
 * taken for them is one more moment a human's git command can meet it.
 */
record SeenChanging(List<RepoPath> paths, Contextual capture) implements Contextual {
    SeenChanging {
        paths = List.copyOf(paths);
    }

    @Override
    public Mutation bind(Context c) {
        return capture.bind(c);
    }

    /**
     * Whether a batch of such captures would capture nothing, told without the branch's lock: the
     * branch is still at the commit the writer captured last (no commit made with git to take in),
     * and each file holds exactly its recorded text, has no open drift item and is not held in
     * conflict by git's index. A file that holds anything else (a human's edit, a save half done,
     * text git put back) makes the batch go the whole way, as does anything the writer still owes
     * the branch. On the writer thread.
     */
    static boolean nothingToCapture(WriterState s, List<SeenChanging> looks) throws IOException {
        if (!s.putBackNext.isEmpty() || !Objects.equals(s.git.refNow(), s.captured)) {
            return false;
        }
        for (SeenChanging look : looks) {
            for (RepoPath p : look.paths()) {
                if (s.unmerged.contains(p) || s.drift.openOn(p).isPresent()) {
                    return false;
                }
                try {
                    if (!s.files.holds(p, s.recordedText(p))) {
                        return false; // anything else, plain text or not: the whole way says what it is
                    }
                } catch (SecurityException notPlain) {
                    return false;
                }
            }
        }
        return true;
    }
}
