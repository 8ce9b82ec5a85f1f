package dev.memoryd.daemon.write;

import dev.memoryd.grammar.RepoPath;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The memory files a human has staged ({@code git add}, {@code git mv}, {@code git rm}: their entry
 * in git's index is not the branch head's), which the watcher's captures leave for the human's own
 * commit. A {@code git commit} reads the branch when it starts and refuses to move it if it moved
 * meanwhile, and a commit written in an editor takes as long as the human writes; a capture of
 * the staged file in that time moved the branch under it, so the human's commit failed ("cannot
 * lock ref 'HEAD'") and their message was lost. A staged file is captured with its commit
 * (named in the event), by an agent's write to it or an explicit {@code capture}, once it is no
 * longer staged, or once it has been staged for {@link #WAIT} (an edit staged and left is
 * recorded all the same).
 *
 * <p>The writer thread only. Time comes from the writer's clock.
 */
final class StagedEdits {
    /** How long a staged memory file waits for its commit before a capture records it anyway. */
    static final Duration WAIT = Duration.ofMinutes(10);

    private final WriterState s;
    /** When each file was first seen staged, while it stays so. */
    private final Map<RepoPath, Instant> since = new HashMap<>();
    /** {@link #since} as last looked at, for {@code ping} on any thread. */
    private volatile List<StagedFile> waitingNow = List.of();

    StagedEdits(WriterState s) {
        this.s = s;
    }

    /**
     * Of {@code paths}, those staged for less than {@link #WAIT}; those no longer staged are
     * forgotten. Reads git's index (not when {@code paths} is empty).
     */
    Set<RepoPath> waiting(Collection<RepoPath> paths) throws IOException {
        Set<RepoPath> out = new HashSet<>();
        if (s.index == null || paths.isEmpty()) {
            return out;
        }
        Optional<DirCache> index = s.index.look().map(l -> l.cache());
        if (index.isEmpty()) {
            return out; // being replaced by a git command: its next event looks again
        }
        List<String> names = paths.stream().map(RepoPath::value).toList();
        Map<String, ObjectId> atHead = s.git.head() == null ? Map.of() : s.git.headBlobIds(names);
        Instant now = s.clock.instant();
        for (RepoPath p : paths) {
            DirCacheEntry e = index.get().getEntry(p.value());
            if (e != null && e.getStage() != DirCacheEntry.STAGE_0) {
                continue; // in conflict: left to git's merge (UnmergedFile), not to a commit
            }
            ObjectId staged = e == null ? null : e.getObjectId();
            if (Objects.equals(staged, atHead.get(p.value()))) {
                since.remove(p);
                continue;
            }
            // Kept once the wait is over, until the file is seen unstaged (its capture stages what it
            // records): a look in between must not start the wait again.
            if (Duration.between(since.computeIfAbsent(p, x -> now), now).compareTo(WAIT) < 0) {
                out.add(p);
            }
        }
        waitingNow = since.entrySet().stream()
                .filter(e -> Duration.between(e.getValue(), now).compareTo(WAIT) < 0)
                .map(e -> new StagedFile(e.getKey().value(), e.getValue()))
                .sorted(java.util.Comparator.comparing(StagedFile::path))
                .toList();
        return out;
    }

    /** Looks again at the files seen staged: after a git command wrote the index (an unstaging, say). */
    void lookAgain() throws IOException {
        waiting(List.copyOf(since.keySet()));
    }

    /** The staged files waiting for their commit when last looked at; any thread. */
    List<StagedFile> waitingNow() {
        return waitingNow;
    }
}
