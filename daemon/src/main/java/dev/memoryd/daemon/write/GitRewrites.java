package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.WorkTreeIndex;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.Chain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;

/**
 * Whether a git command (a stash, a reset, a checkout) rewrote the ledger segment or a file a
 * batch read, between the batch's reading and its publication: the batch then rests on a state
 * that is gone and is redone on top of the new one. Git records what it writes in the index, which
 * is how its rewrite is told from an editor's save (that one is kept and captured next), and it
 * writes the index after what it rewrites.
 *
 * <p>The look that reads the index and the batch's files is taken before git's index lock ({@link
 * #beforeLock}) whenever someone else wrote the index since memoryd, since a {@code git commit}
 * fails at once on a held lock; under the lock ({@link #underLock}) a stat of the index then tells
 * whether any git command wrote it since that look, and the look is taken again only if one did.
 * The active segment is checked under the lock every time.
 *
 * <p>Thread-safety: called on the writer thread only, one batch at a time.
 */
final class GitRewrites {
    private final WriterState s;
    /** The index as the batch's look before the lock read it; null when none was taken. */
    private WorkTreeIndex.Look looked;

    GitRewrites(WriterState s) {
        this.s = s;
    }

    /**
     * Before the index lock, for a batch whose index was prepared on {@code prepared}: whether a git
     * command rewrote what the batch read. When not, the look is remembered for {@link #underLock}.
     */
    boolean beforeLock(WriteBatch b, Set<String> files, WorkTreeIndex.Prepared prepared) throws IOException {
        looked = null;
        if (s.index == null || prepared == null || s.index.ours(prepared)) {
            return false; // nothing to read: under the lock a stat tells that no one wrote the index
        }
        WorkTreeIndex.Mark mark = s.index.mark();
        if (mark.busy()) {
            return false; // a git command is at work: looked at under the lock, once it is done
        }
        Optional<WorkTreeIndex.Look> look = s.index.look();
        if (look.isEmpty()) {
            return false; // replaced while read: looked at under the lock
        }
        DirCache dc = look.get().cache();
        boolean rewritten = s.fullSegment.rolledBack(() -> dc) || rewritten(b, files, dc);
        if (s.index.mayHaveRaced(mark)) {
            // A git command began meanwhile: the look may have met its half-written tree, so nothing
            // it concluded is kept but a redo (harmless), and the segment is read again under the lock.
            s.fullSegment.forget();
            return rewritten;
        }
        if (!rewritten) {
            looked = look.get();
        }
        return rewritten;
    }

    /** Under the index lock ({@code locks}): whether a git command rewrote what the batch read. */
    boolean underLock(WriteBatch b, Set<String> files, BatchLocks locks) throws IOException {
        WorkTreeIndex.Look look = looked;
        looked = null;
        if (s.chain.activeOnDisk() != Chain.DiskState.INTACT) {
            return true;
        }
        WorkTreeIndex.Held held = locks.index;
        if (held == null || held.untouchedSinceMemoryd() || held.unchangedSince(look)) {
            return false;
        }
        s.stats.count(PhaseStats.Count.LOCKED_INDEX_READS);
        return s.fullSegment.rolledBack(held::cache) || rewritten(b, files, held.cache());
    }

    /** Whether any of {@code files} the batch read now holds what git wrote there ({@code dc}). */
    private boolean rewritten(WriteBatch b, Set<String> files, DirCache dc) throws IOException {
        try (ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
            for (String f : files) {
                Optional<String> seen = b.diskSeen.get(RepoPath.of(f));
                if (seen == null) {
                    continue;
                }
                Path file = s.files.root().resolve(f);
                Optional<byte[]> now = Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                        ? Optional.of(Files.readAllBytes(file))
                        : Optional.empty();
                if (now.map(x -> new String(x, StandardCharsets.UTF_8)).equals(seen)) {
                    continue;
                }
                ObjectId id = now.map(x -> fmt.idFor(Constants.OBJ_BLOB, x)).orElse(null);
                DirCacheEntry e = dc.getEntry(f);
                if (e != null && e.getStage() != DirCacheEntry.STAGE_0) {
                    // A merge (a stash pop) left it in conflict: git wrote the markers, not an editor. Kept as
                    // a save, the batch would commit its text while the file on disk lacked it.
                    return true;
                }
                if (e != null ? e.getObjectId().equals(id) : id == null) {
                    return true;
                }
            }
        }
        return false;
    }
}
