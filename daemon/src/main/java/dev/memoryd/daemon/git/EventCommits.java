package dev.memoryd.daemon.git;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * Which commit carries which ledger event, from the {@value CommitFormat#TRAILER_EVENT} trailers
 * of the branch's commits: learned by walking the history once, then only the commits added
 * since the last walk. Only the last paragraph of a message is read as trailers, so a rationale
 * cannot name an event. Thread-safe.
 */
public final class EventCommits {
    /** The branch head now (null before the first commit). */
    @FunctionalInterface
    public interface Head {
        ObjectId get() throws IOException;
    }

    private final Repository repo;
    private final Head head;
    private final Map<String, String> commitOf = new HashMap<>();
    private ObjectId walked;

    public EventCommits(Repository repo, Head head) {
        this.repo = repo;
        this.head = head;
    }

    /** The commit reachable from the branch head whose trailers name event {@code eventId}, if any. */
    public synchronized Optional<String> commitOf(String eventId) throws IOException {
        String known = commitOf.get(eventId);
        if (known != null) {
            return Optional.of(known);
        }
        ObjectId h = head.get();
        if (h == null || h.equals(walked)) {
            return Optional.empty();
        }
        try (RevWalk w = new RevWalk(repo)) {
            w.markStart(w.parseCommit(h));
            if (walked != null && repo.getObjectDatabase().has(walked)) {
                w.markUninteresting(w.parseCommit(walked));
            }
            for (RevCommit c : w) {
                String msg = c.getFullMessage().stripTrailing();
                int para = msg.lastIndexOf("\n\n");
                for (String line : msg.substring(para < 0 ? 0 : para + 2).split("\n")) {
                    if (line.startsWith(CommitFormat.TRAILER_EVENT + ": ")) {
                        commitOf.putIfAbsent(
                                line.substring(CommitFormat.TRAILER_EVENT.length() + 2)
                                        .strip(),
                                c.name());
                    }
                }
            }
        }
        walked = h;
        return Optional.ofNullable(commitOf.get(eventId));
    }
}
