package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.HumanActor;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.layout.Utf8;
import dev.memoryd.grammar.RepoPath;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;

/**
 * Humans' edits into the writer: the requests that capture working-tree saves, the capture of
 * commits a human made with git (before a batch), and of a human's uncaptured edit of a file an
 * agent's declaration read (before that declaration), each recorded under the human's name.
 *
 * <p>Thread-safety: {@link #captureRequest}, {@link #seenChanging} and {@link #memoryFiles} may be called from any
 * thread (they only read the disk and the branch head); everything else runs on the writer thread.
 */
final class HumanIntake {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    private final WriterState s;
    /** {@code HEAD}'s file key, time and size when {@link #headBranch} was read; writer thread only. */
    private List<Object> headStamp;

    private String headBranch;

    private final StagedEdits staged;

    /** The files the watcher leaves for the human's commit ({@link StagedEdits}). */
    StagedEdits staged() {
        return staged;
    }

    HumanIntake(WriterState s) {
        this.s = s;
        this.staged = new StagedEdits(s);
    }

    /**
     * The request capturing humans' edits: the given memory files on disk against their recorded
     * texts, plus any commit a human put on the branch (captured with every batch). With {@code
     * leaveStaged}, files the human staged are left for their commit ({@link StagedEdits}).
     */
    WriteRequest captureRequest(java.util.Collection<RepoPath> paths, boolean leaveStaged) {
        List<RepoPath> sorted = memoryPaths(paths);
        return request(capture(sorted, leaveStaged), sorted);
    }

    /**
     * The capture of memory files the watcher saw change on disk: as {@link #captureRequest} with
     * staged files left for the human's commit, marked ({@link SeenChanging}) so that the writer
     * first looks, without the branch's lock, whether there is anything to capture at all ({@link
     * SeenChanging#nothingToCapture}): most such events are memoryd's own writes.
     */
    WriteRequest seenChanging(java.util.Collection<RepoPath> paths) {
        List<RepoPath> sorted = memoryPaths(paths);
        return request(new SeenChanging(sorted, capture(sorted, true)), sorted);
    }

    private static List<RepoPath> memoryPaths(java.util.Collection<RepoPath> paths) {
        return paths.stream()
                .filter(RootLayout::isMemoryFile)
                .distinct()
                .sorted(java.util.Comparator.comparing(RepoPath::value))
                .toList();
    }

    /** The capture of {@code sorted}: each file on disk against its recorded text. */
    private Contextual capture(List<RepoPath> sorted, boolean leaveStaged) {
        return ctx -> {
            List<HumanCapture.Item> items = new ArrayList<>();
            java.util.Set<RepoPath> waiting = java.util.Set.of();
            try {
                if (leaveStaged) {
                    waiting = staged.waiting(sorted);
                }
            } catch (IOException unreadable) {
                // The index could not be read: capture as if nothing were staged, which loses no word.
                LOG.fine("git's index unreadable; capturing staged files too: " + unreadable);
            }
            for (RepoPath p : sorted) {
                if (waiting.contains(p)) {
                    continue;
                }
                Optional<String> before = ctx.recorded(p);
                Optional<String> now;
                try {
                    now = ctx.disk(p);
                } catch (UnmergedFile conflict) {
                    continue; // git's conflict, not an edit: captured once git holds the file merged
                }
                if (!before.equals(now) || ctx.drift().openOn(p).isPresent()) {
                    items.add(new HumanCapture.Item(p, before.orElse(null), now.orElse(null)));
                }
            }
            return new HumanCapture(ctx, items, HumanSource.WorkTree.ON_DISK);
        };
    }

    private WriteRequest request(Contextual capture, List<RepoPath> sorted) {
        PersonIdent who = humanIdent(s.clock.instant());
        return WriteRequest.of(
                capture,
                "captured a human's edit of "
                        + (sorted.size() == 1 ? sorted.get(0).value() : sorted.size() + " files"),
                humanActor(who));
    }

    /**
     * Every memory file: those on disk, those the branch head records (so a deletion is seen too)
     * and those with an open drift item ({@link DriftView#openPaths}).
     */
    java.util.Set<RepoPath> memoryFiles() throws IOException {
        java.util.Set<RepoPath> all = new java.util.HashSet<>(memoryFilesOnDisk(s.files.root()));
        s.git.listFiles(s.git.head()).stream()
                .filter(RootLayout::isMemoryFile)
                .map(RepoPath::of)
                .forEach(all::add);
        all.addAll(s.drift.openPaths());
        return all;
    }

    /** The memory files on disk under {@code root}, in path order; a name memoryd could not hold is left to lint. */
    static List<RepoPath> memoryFilesOnDisk(java.nio.file.Path root) throws IOException {
        List<RepoPath> out = new ArrayList<>();
        for (String rel : RootLayout.memoryFilesOnDisk(root)) {
            try {
                out.add(RepoPath.of(rel));
            } catch (IllegalArgumentException bad) {
                // not a path memoryd could hold; lint reports such files
            }
        }
        return out;
    }

    /** The identity humans' working-tree edits are committed under: the repository's git user. */
    private PersonIdent humanIdent(Instant now) {
        PersonIdent who = new PersonIdent(s.git.repository());
        return new PersonIdent(who.getName(), who.getEmailAddress(), now, java.time.ZoneOffset.UTC);
    }

    private static String humanActor(PersonIdent who) {
        return HumanActor.of(who);
    }

    /**
     * For the working tree's writer: a refusal when git has another branch checked out (the files
     * on disk are that branch's, and capturing them would record them on this one), or is in the
     * middle of a merge, cherry-pick, revert, rebase or {@code git am} ({@link GitInProgress}).
     */
    Optional<Failure> elsewhere() throws IOException {
        if (!s.files.workTree()) {
            return Optional.empty();
        }
        Optional<GitInProgress> waiting = GitInProgress.of(s.git.repository());
        if (waiting.isPresent()) {
            return waiting.map(GitInProgress::refusal); // first: a rebase detaches HEAD, and no checkout is the way on
        }
        String full = checkedOut();
        String want = org.eclipse.jgit.lib.Constants.R_HEADS + s.branch.value();
        if (full == null || full.equals(want)) {
            return Optional.empty();
        }
        return Optional.of(new Failure(
                ErrorReason.UNAVAILABLE,
                "the working tree has " + full.replaceFirst("^refs/heads/", "")
                        + " checked out, but this daemon serves " + s.branch.value()
                        + "; nothing was written (git checkout "
                        + s.branch.value() + " to continue, or serve the other branch with --branch)",
                Map.of("checked_out", full)));
    }

    /**
     * The branch the working tree has checked out, read again only when {@code HEAD}'s file
     * changed (git replaces it by a rename, so a new file key, time or size tells): every batch
     * asks.
     */
    private String checkedOut() throws IOException {
        java.nio.file.Path head = s.git.repository().getDirectory().toPath().resolve("HEAD");
        java.nio.file.attribute.BasicFileAttributes a = null;
        try {
            a = java.nio.file.Files.readAttributes(
                    head, java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.NoSuchFileException e) {
            // read by JGit below, which says what it makes of a missing HEAD
        }
        List<Object> stamp = a == null ? null : List.of(a.fileKey(), a.lastModifiedTime(), a.size());
        if (stamp != null && stamp.equals(headStamp)) {
            return headBranch;
        }
        String full = s.git.repository().getFullBranch();
        headStamp = stamp;
        headBranch = full;
        return full;
    }

    /**
     * Captures commits a human put on the branch since the recorded commit (with plain git). When
     * the working tree's branch was moved to a commit that does not contain memoryd's last one (a
     * {@code git reset}), memoryd's declarations it lacks are first redone on top of it ({@link
     * TakenOff}); where they cannot be, or on a branch not checked out, the batch is refused (not
     * the writer stopped): writes resume once the branch is back.
     */
    Optional<Failure> captureCommits(WriteBatch b, Instant now, BatchLocks locks)
            throws IOException, BatchLocks.RedoBatch, BatchLocks.LockedOut {
        GitStore git = s.git;
        ObjectId captured = s.captured;
        ObjectId ref = git.refNow();
        if (ref == null || ref.equals(captured)) {
            return Optional.empty();
        }
        s.lineEnds.headMovedByGit();
        if (!git.isAncestor(captured, ref)
                && s.index != null
                && dev.memoryd.daemon.git.StaleReset.tookOff(git, captured, ref)) {
            locks.lockIndex();
            Map<String, ObjectId> restored =
                    dev.memoryd.daemon.git.StaleReset.undo(git, s.files.root(), locks.index.cache(), captured, ref);
            locks.index.note(restored, Map.of());
            LOG.warning("git's reset --hard HEAD took memoryd's commits after " + ref.name() + " off branch "
                    + s.branch.value()
                    + " (it resolved HEAD before they were made); the branch is back at " + captured.name()
                    + ", and the files it rewrote: " + restored.keySet());
            git.holdRef(locks.waitMs); // the ref move consumed the lock; the batch goes on holding it
            return Optional.empty();
        }
        s.unmerged.clear(); // git commits no index that holds a conflict: a read finds any still there again
        ObjectId tip = ref;
        boolean moved = !git.isAncestor(captured, ref);
        if (moved) {
            if (s.index == null || git.mergeBase(captured, ref).isEmpty()) {
                return Optional.of(new Failure(
                        ErrorReason.UNAVAILABLE,
                        "branch " + s.branch.value() + " was moved to "
                                + ref.name() + ", which does not contain memoryd's last commit " + captured.name()
                                + " (a git reset?);"
                                + " nothing was written. memoryd only writes on top of its own commits: move the branch"
                                + " back (git reset --hard " + captured.name()
                                + "), or restart memoryd to redo the ledger's later events on top"
                                + " of the moved branch",
                        TakenOff.refusalData(ref, captured)));
            }
            locks.lockIndex();
            if (!ref.equals(git.refNow())) {
                // The index was busy and the ref lock let go meanwhile: a git command moved the branch again
                throw new BatchLocks.RedoBatch();
            }
            TakenOff.Outcome o = new TakenOff(s).redo(captured, ref, locks.waitMs);
            if (o instanceof TakenOff.CannotRedo c) {
                return Optional.of(new Failure(
                        ErrorReason.UNAVAILABLE,
                        TakenOff.refusal(s.branch.value(), ref, captured, c.why()),
                        TakenOff.refusalData(ref, captured)));
            }
            if (o instanceof TakenOff.Redone r) {
                tip = r.tip();
                s.indexBacklog.putAll(r.written()); // checked against the files when recorded
            }
        }
        List<String> paths = git.changedPaths(captured, tip, RootLayout::isMemoryFile);
        List<GitStore.CommitInfo> commits = git.commitsBetween(captured, ref, 50);
        if (moved) {
            // memoryd's own commits the move brought back are not a human's
            commits = commits.stream().filter(c -> !isMemorydCommit(c.id())).toList();
        }
        for (String path : paths) {
            s.recordedText(RepoPath.of(path)); // pin the old recorded text before moving on
        }
        s.captured = tip;
        git.reloadHead();
        List<HumanSource.Commit> made = new ArrayList<>();
        for (GitStore.CommitInfo c : commits) {
            made.add(new HumanSource.Commit(
                    c.id().name(),
                    c.author().getName() + " <" + c.author().getEmailAddress() + ">",
                    c.author().getWhenAsInstant().toString(),
                    c.subject()));
        }
        LedgerPutBack.afterCommits(s, b, captured, tip, new HumanSource.Commits(made), now);
        if (paths.isEmpty()) {
            return Optional.empty();
        }
        List<HumanCapture.Item> items = new ArrayList<>();
        List<String> takenBack = new ArrayList<>();
        BehindBranch stale = new BehindBranch(s);
        for (String path : paths) {
            RepoPath rp = RepoPath.of(path);
            Optional<byte[]> committed = git.read(tip, path);
            if (!moved && tookMemorydsWriteOut(b, rp, captured, committed)) {
                s.putBackNext.put(path, b.recorded(rp).orElseThrow().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                takenBack.add(path);
                continue;
            }
            String text = null;
            if (committed.isPresent() && git.modeOf(path) == org.eclipse.jgit.lib.FileMode.SYMLINK) {
                // The blob is the link's target: never a text to record, nor a path to follow.
                dev.memoryd.daemon.layout.NotMemoryText link = dev.memoryd.daemon.layout.NotMemoryText.symlink(
                        path, new String(committed.get(), java.nio.charset.StandardCharsets.UTF_8));
                b.undecodable(rp, link.getMessage());
                text = link.shown();
            } else if (committed.isPresent()) {
                try {
                    text = Utf8.decode(committed.get(), path);
                } catch (Utf8.NotUtf8 e) {
                    b.undecodable(rp, e.getMessage());
                    text = e.lossy();
                }
            }
            items.add(new HumanCapture.Item(rp, b.recorded(rp).orElse(null), text));
            stale.look(b, rp, captured, Optional.ofNullable(text));
        }
        if (!takenBack.isEmpty()) {
            LOG.warning("a commit made with git (" + tip.name() + ") holds an older version of " + takenBack
                    + " than memoryd's last commit, while the working copy holds memoryd's: git made it from an"
                    + " index it read before memoryd's write; memoryd puts its text back in its next commit and"
                    + " records no edit");
        }
        if (items.isEmpty()) {
            return Optional.empty();
        }
        HumanSource source = new HumanSource.Commits(made);
        PersonIdent who = commits.isEmpty() ? humanIdent(now) : commits.get(0).person();
        Mutation.Result r = new HumanCapture(b, items, source).apply(b.source(), now);
        if (r instanceof Mutation.Done d && d.changed()) {
            WriteRequest req = new WriteRequest(
                    List.of(),
                    new HumanCapture(b, items, source),
                    commits.isEmpty()
                            ? "captured the files of " + ref.name() + ", where a git command moved the branch"
                            : "captured " + commits.size() + " commit(s) made with git: "
                                    + commits.get(0).subject(),
                    humanActor(who),
                    null,
                    null);
            b.accept(new Pending(req, new CompletableFuture<>()), d, req, who, now);
            stale.bringUp(b, ref, now, humanIdent(now));
        }
        if (!moved) {
            // What the human committed may not be what their working copy holds (an edit saved
            // since, or a commit made from an index a failed git commit wrote back from before
            // memoryd's write): an agent's write to such a file reads the working copy, not this.
            items.forEach(i -> b.fromCommits.put(i.path(), i.recorded()));
        }
        return Optional.empty();
    }

    /**
     * Whether a commit made with git took memoryd's last write to {@code p} out without the human
     * ever seeing the older text: the commit holds a version memoryd's branch held before its last
     * commit, while the working copy still holds memoryd's recorded text. git's own race: {@code git
     * commit} reads the index before it takes the index's lock, so an index read before memoryd's
     * write goes into the commit, under memoryd's commit as its parent. A human who takes a write
     * back on purpose (a revert, a checkout of the older file) changes the working copy too, and is
     * captured as ever.
     */
    private boolean tookMemorydsWriteOut(WriteBatch b, RepoPath p, ObjectId memorydsCommit, Optional<byte[]> committed)
            throws IOException {
        Optional<String> recorded = b.recorded(p);
        if (committed.isEmpty() || recorded.isEmpty() || s.index == null) {
            return false;
        }
        byte[] ours = recorded.get().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (java.util.Arrays.equals(ours, committed.get())) {
            return false;
        }
        try {
            if (!b.disk(p).equals(recorded)) {
                return false;
            }
        } catch (UnmergedFile conflict) {
            return false; // the working copy is not memoryd's text: git's conflict is there
        }
        return dev.memoryd.daemon.git.OlderVersion.heldBefore(s.git, memorydsCommit, p.value(), committed.get());
    }

    private boolean isMemorydCommit(ObjectId id) {
        try {
            return s.git.trailers(id).stream()
                    .anyMatch(t -> t.getKey().equals(dev.memoryd.daemon.git.CommitFormat.TRAILER_HEAD));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Captures a human's uncaptured edits of files an agent's declaration read, before it. */
    Mutation.Done captureBefore(WriteBatch b, Map<RepoPath, String> dirty, Instant now) {
        List<HumanCapture.Item> items = new ArrayList<>();
        dirty.forEach(
                (p, text) -> items.add(new HumanCapture.Item(p, b.recorded(p).orElse(null), text)));
        HumanSource source = HumanSource.WorkTree.ON_DISK;
        Mutation.Result r = new HumanCapture(b, items, source).apply(b.source(), now);
        Mutation.Done d = (Mutation.Done) r;
        if (d.changed()) {
            PersonIdent who = humanIdent(now);
            WriteRequest req = WriteRequest.of(
                    new HumanCapture(b, items, source),
                    "captured a human's edit before an agent's write",
                    humanActor(who));
            b.accept(new Pending(req, new CompletableFuture<>()), d, req, who, now);
        }
        return d;
    }
}
