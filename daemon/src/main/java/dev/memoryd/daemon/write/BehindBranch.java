package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.HumanActor;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.human.HumanEdits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;
import org.eclipse.jgit.diff.DiffAlgorithm;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.diff.RawTextComparator;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.merge.MergeAlgorithm;
import org.eclipse.jgit.merge.MergeFormatter;
import org.eclipse.jgit.merge.MergeResult;

/**
 * Tells what to do with a memory file the branch's new commits changed when the branch moved
 * without its working tree: git's index still holds the file's version from before the move, so
 * neither a commit made here nor a checkout or reset wrote it (a push, forced or not, into the
 * checked-out branch where {@code receive.denyCurrentBranch} is {@code ignore}, a {@code git
 * update-ref}; after a forced one, memoryd's own declarations it took off are redone first). A file
 * that also still holds that version is stale, not edited: it is brought up to the new commit, as
 * {@code receive.denyCurrentBranch=updateInstead} would, or taken out of the working tree when
 * the commits deleted it (the deletion is then drift, as a human's {@code git rm} and commit is,
 * and waits in the same state). One a human saved meanwhile is theirs;
 * their changes are merged with the commits' (line by line, as {@code git merge} would) where the
 * two do not overlap; otherwise the file is left as it is and flagged as drift ({@link
 * #KIND_OVERLAP}), the branch keeping the commits' text, for a maintainer to choose.
 *
 * <p>One per capture of commits: {@link #look} at each file they changed, then {@link #bringUp}.
 * Reads the index without its lock; the rename that writes a file still checks that it holds
 * what it held here ({@link WritePipeline.FileStore#stage}). On the writer thread.
 */
final class BehindBranch {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    /** What to do with one file. */
    sealed interface Outcome {}

    /** The file is the new commit's, a human's own work, or not a case of a branch moved without it. */
    record Current() implements Outcome {}

    /** The file holds the version from before the move: write the new commit's text into place. */
    record Behind() implements Outcome {}

    /**
     * The commits deleted the file and it still holds the version from before the move: take it out
     * of the working tree (the index keeps its entry, as for a file a human deleted).
     */
    record Gone(byte[] stale) implements Outcome {}

    /** A human's edit and the commits' changes, merged: their edit on top of the new commit. */
    record Merged(String text) implements Outcome {}

    /** A human's edit overlaps the commits' changes: both kept, theirs in a drift item. */
    record Overlapping() implements Outcome {}

    /** The drift kind of a human's edit that overlaps commits that moved the branch without it. */
    static final String KIND_OVERLAP = "overlaps_commits";

    private final WriterState s;
    private DirCache index;
    private boolean looked;
    private final List<RepoPath> behind = new ArrayList<>();
    private final Map<String, byte[]> gone = new LinkedHashMap<>();
    private final Map<RepoPath, String> merged = new LinkedHashMap<>();
    private final List<RepoPath> overlapping = new ArrayList<>();

    BehindBranch(WriterState s) {
        this.s = s;
    }

    /**
     * What to do with {@code p}, whose text at commit {@code from} (memoryd's last) the branch's new
     * commits changed to {@code now} (empty: deleted).
     */
    Outcome of(WriteBatch b, RepoPath p, ObjectId from, Optional<String> now) throws IOException {
        if (s.index == null || !s.files.workTree()) {
            return new Current();
        }
        Optional<String> disk;
        try {
            disk = b.disk(p); // the base the rename checks against
        } catch (UnmergedFile conflict) {
            return new Current();
        }
        if (disk.equals(now) || b.undecodable(p).isPresent() || index() == null) {
            return new Current(); // no index read whole: nothing is known of git's view
        }
        Optional<byte[]> base = s.git.read(from, p.value());
        DirCacheEntry entry = index().getEntry(p.value());
        if (base.isEmpty()) {
            return now.isPresent() && disk.isEmpty() && entry == null ? new Behind() : new Current();
        }
        ObjectId old;
        try (ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
            old = fmt.idFor(Constants.OBJ_BLOB, base.get());
        }
        if (entry == null
                || entry.getStage() != DirCacheEntry.STAGE_0
                || !entry.getObjectId().equals(old)
                || disk.isEmpty()) {
            return new Current(); // git wrote the index (a commit here, a checkout) or the human deleted the file
        }
        byte[] onDisk = disk.get().getBytes(StandardCharsets.UTF_8); // decoded strictly: the file's bytes
        if (java.util.Arrays.equals(onDisk, base.get())) {
            return now.isEmpty() ? new Gone(onDisk) : new Behind();
        }
        if (now.isEmpty()) {
            return new Current(); // edited since: the human's file stays, and the deletion is drift as any other
        }
        return merge(base.get(), onDisk, now.get().getBytes(StandardCharsets.UTF_8))
                .<Outcome>map(Merged::new)
                .orElseGet(Overlapping::new);
    }

    /** Looks at {@code p} ({@link #of}) and keeps what to do with it for {@link #bringUp}. */
    void look(WriteBatch b, RepoPath p, ObjectId from, Optional<String> now) throws IOException {
        Outcome o = of(b, p, from, now);
        if (o instanceof Behind) {
            behind.add(p);
        } else if (o instanceof Gone g) {
            gone.put(p.value(), g.stale());
        } else if (o instanceof Merged m) {
            merged.put(p, m.text());
        } else if (o instanceof Overlapping) {
            overlapping.add(p);
        }
    }

    /**
     * After the capture of the commits: writes the new commits' text into the files {@link #look}
     * found behind them, and captures each human's edit merged with the commits' changes as their
     * edit on top of them, written into place too. An edit that overlaps the commits' changes, or
     * whose merge with them the grammar would take for drift, is flagged as drift instead.
     */
    void bringUp(WriteBatch b, ObjectId ref, Instant now, PersonIdent who) {
        b.diskWrites.addAll(behind); // written into the working tree with the capture's commit
        b.diskRemovals.putAll(gone); // taken out once the capture is published
        List<RepoPath> mergedIn = new ArrayList<>();
        merged.forEach((p, text) -> {
            List<HumanCapture.Item> item =
                    List.of(new HumanCapture.Item(p, b.recorded(p).orElse(null), text));
            HumanCapture edit = new HumanCapture(b, item, HumanSource.WorkTree.ON_DISK);
            if (edit.apply(b.source(), now) instanceof Mutation.Done d
                    && d.changed()
                    && text.equals(d.newContents().get(p))) {
                WriteRequest req = WriteRequest.of(
                        edit, "captured a human's edit, merged with commits made with git", HumanActor.of(who));
                b.accept(new Pending(req, new CompletableFuture<>()), d, req, who, now);
                b.diskWrites.add(p);
                mergedIn.add(p);
            } else {
                overlapping.add(p);
            }
        });
        if (!behind.isEmpty() || !mergedIn.isEmpty() || !gone.isEmpty()) {
            LOG.info("branch " + s.branch.value() + " moved to " + ref.name()
                    + " without its working tree (a push into the checked-out branch, an update-ref); memoryd"
                    + " brings " + behind + " up to it"
                    + (gone.isEmpty() ? "" : ", takes out " + gone.keySet() + ", which it deleted")
                    + (mergedIn.isEmpty() ? "" : ", and merges a human's edit of " + mergedIn + " with it"));
        }
        for (RepoPath p : overlapping) {
            // Neither text may silently replace the other: the branch keeps the commits', the working
            // tree and a drift item the human's, for a maintainer to resolve.
            HumanEdits.Breaks conflict = new HumanEdits.Breaks(
                    KIND_OVERLAP,
                    "saved in the working tree while commits made elsewhere (" + ref.name()
                            + ") changed it too, and the two do not merge (the same lines changed, or a merge the"
                            + " grammar refuses); the branch holds theirs, this file yours: resolve with"
                            + " accept_current (yours) or restore (theirs)",
                    List.of());
            String id = b.drift()
                    .openOn(p)
                    .map(DriftView.Item::id)
                    .orElseGet(() -> s.ids.next().value());
            Mutation.Done d = new Mutation.Done(
                    Map.of(),
                    List.of(HumanCapture.flagged(
                            p, id, conflict, b.disk(p).orElse(null), HumanSource.WorkTree.ON_DISK)),
                    true);
            WriteRequest req =
                    WriteRequest.of((src, t) -> d, "a human's edit overlaps commits made with git", HumanActor.of(who));
            b.accept(new Pending(req, new CompletableFuture<>()), d, req, who, now);
        }
        if (!overlapping.isEmpty()) {
            LOG.warning("branch " + s.branch.value() + " moved to " + ref.name()
                    + " without its working tree, while a human's edit of " + overlapping
                    + " overlaps what its commits changed: the branch keeps the commits' text, the working"
                    + " tree the human's, and a drift item waits for a maintainer");
        }
    }

    /**
     * The line-by-line three-way merge of {@code ours} and {@code theirs} from {@code base}; empty
     * when they overlap, or when a text does not end its last line (the merge would decide it).
     */
    static Optional<String> merge(byte[] base, byte[] ours, byte[] theirs) {
        for (byte[] t : List.of(base, ours, theirs)) {
            if (t.length > 0 && t[t.length - 1] != '\n') {
                return Optional.empty();
            }
        }
        MergeResult<RawText> r = new MergeAlgorithm(
                        DiffAlgorithm.getAlgorithm(DiffAlgorithm.SupportedAlgorithm.HISTOGRAM))
                .merge(RawTextComparator.DEFAULT, new RawText(base), new RawText(ours), new RawText(theirs));
        if (r.containsConflicts()) {
            return Optional.empty();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(ours.length, theirs.length));
        try {
            new MergeFormatter().formatMerge(out, r, List.of("base", "ours", "theirs"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // a byte array's stream does not fail
        }
        return Optional.of(out.toString(StandardCharsets.UTF_8));
    }

    /** git's index, read once; null when there is none or it was replaced while read. */
    private DirCache index() throws IOException {
        if (!looked) {
            looked = true;
            index = s.index
                    .look()
                    .map(dev.memoryd.daemon.git.WorkTreeIndex.Look::cache)
                    .orElse(null);
        }
        return index;
    }
}
