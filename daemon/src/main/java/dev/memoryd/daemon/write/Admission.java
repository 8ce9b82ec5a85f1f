package dev.memoryd.daemon.write;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.git.CommitFormat;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.write.BatchLocks.LockedOut;
import dev.memoryd.daemon.write.BatchLocks.RedoBatch;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.RepoPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Admission of one batch of declarations: it takes the branch's locks, captures what humans did
 * first (commits made with git, then a tampered or rolled-back ledger segment: {@link
 * ActiveSegmentCheck}), refusing the batch while git would convert memory files' line ends
 * ({@link LineEndCheck}), then validates
 * each declaration in order against the state the ones before it leave ({@link WriteBatch}),
 * answering repeats of an idempotency key with their first outcome; the accepted ones go to the
 * {@link Publisher}. A batch the branch moved under is redone (up to three tries); refusals are
 * answered only after the batch is published. A batch stops taking declarations once the texts
 * its accepted ones leave pass {@link #HELD_CHARS} (each version of a file is kept until its
 * commit is built): the rest are the next batch's, so the heap a batch needs is bounded by the
 * budget and the largest file, not by the batch's length.
 *
 * <p>Thread-safety: called on the writer thread only.
 *
 * <p>Longer than a room: the order in which one declaration is admitted (idempotency, the file's
 * humans' edits captured first, drift, review) reads in one loop.
 */
final class Admission {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    /**
     * The characters of accepted texts after which a batch takes no more declarations: 32 Mi, about
     * 32 MB of the heap for ASCII text (the launcher's daemon has 512 MB at most). A batch of 256
     * appends to a 1.4 MB file held over 350 MB and ran the daemon out of memory. Importing notes
     * into a file that grows to 180 KB, a batch takes about 190 of them (at 16 Mi about 95, and the
     * import was 5 % slower).
     */
    static final long HELD_CHARS = Long.getLong("memoryd.batchHeldChars", 32L << 20);

    private final WriterState s;
    private final HumanIntake intake;
    private final Publisher publisher;
    private final ActiveSegmentCheck segmentCheck;

    Admission(WriterState s, HumanIntake intake, Publisher publisher) {
        this.s = s;
        this.intake = intake;
        this.publisher = publisher;
        this.segmentCheck = new ActiveSegmentCheck(s);
    }

    /**
     * Admits and publishes {@code batch}, answering each of its declarations, except the tail left
     * once the batch holds {@link #HELD_CHARS} of text: returned (in order, none of it applied) for
     * the next batch; empty when every declaration was answered.
     */
    List<Pending> process(List<Pending> batch) throws IOException, UnsettledBatch {
        Optional<Failure> unsettled = publisher.settle();
        if (unsettled.isPresent()) {
            WriteOutcome refused = new WriteOutcome.Rejected(-1, unsettled.get());
            batch.forEach(p -> p.future().complete(refused));
            return List.of();
        }
        List<SeenChanging> looks = new ArrayList<>();
        for (Pending p : batch) {
            if (p.req().mutation() instanceof SeenChanging look) {
                looks.add(look);
            }
        }
        if (looks.size() == batch.size() && SeenChanging.nothingToCapture(s, looks)) {
            // Files the watcher saw change that hold their recorded text (memoryd's own writes, mostly):
            // no lock a git command could meet.
            WriteOutcome same = new WriteOutcome.Unchanged(
                    s.git.head() == null ? null : s.git.head().name());
            batch.forEach(p -> p.future().complete(same));
            return List.of();
        }
        long lockWaitMs = WriterState.lockWaitMs();
        long l0 = System.nanoTime();
        // A git command holding the index moves the branch before it lets go (a `git commit -a`
        // whose message is still being written): the ref lock is not taken meanwhile, so that move
        // never meets it (git waits only 100 ms for a ref lock).
        if (s.index != null && s.index.othersHoldLock() && !s.index.awaitGitDone(lockWaitMs)) {
            s.stats.add(PhaseStats.Phase.REF_LOCK, System.nanoTime() - l0);
            refuseLocked(batch, s.index.lockFile(), lockWaitMs);
            return List.of();
        }
        boolean locked = s.git.holdRef(lockWaitMs);
        s.stats.add(PhaseStats.Phase.REF_LOCK, System.nanoTime() - l0);
        if (locked) {
            s.stats.count(PhaseStats.Count.REF_LOCKS);
        }
        if (!locked) {
            refuseLocked(batch, s.git.refLockFile(), lockWaitMs);
            return List.of();
        }
        BatchLocks locks = new BatchLocks(lockWaitMs, s.git, s.index);
        List<Pending> rest = List.of();
        try {
            for (int attempt = 1; ; attempt++) {
                ObjectId capturedBefore = s.captured;
                try {
                    rest = processLocked(batch, locks);
                    break;
                } catch (RedoBatch redo) {
                    s.captured = capturedBefore; // the commit that moved the branch is captured by the next try
                    if (attempt == 3) {
                        WriteOutcome busy = new WriteOutcome.Rejected(
                                -1,
                                new Failure(
                                        ErrorReason.UNAVAILABLE,
                                        "the branch kept"
                                                + " moving under the writer (git commands committing on it); nothing was recorded: retry",
                                        Map.of("recorded", false)));
                        batch.forEach(p -> p.future().complete(busy));
                        break;
                    }
                } catch (LockedOut out) {
                    refuseLocked(batch, out.lock, lockWaitMs);
                    break;
                } catch (IOException | RuntimeException e) {
                    s.captured = capturedBefore; // a capture this batch began is redone by the next one
                    throw e;
                }
            }
            s.health.succeeded();
        } finally {
            s.git.releaseRef(); // when the batch moved the ref, the lock is already gone
            locks.close();
        }
        return rest;
    }

    private static void refuseLocked(List<Pending> batch, java.nio.file.Path lock, long waitMs) {
        // Nothing is recorded yet: refuse the batch rather than race the git command.
        WriteOutcome busy = new WriteOutcome.Rejected(
                -1,
                new Failure(
                        ErrorReason.UNAVAILABLE,
                        "the branch is locked by"
                                + " another git command (" + lock + " exists for over " + waitMs + " ms); nothing"
                                + " was recorded: retry, or remove the lock file if no git command is running",
                        Map.of("lock", lock.toString())));
        for (Pending p : batch) {
            p.future().complete(busy);
        }
    }

    /** As {@link #process}, under the branch's locks: returns the tail left for the next batch. */
    private List<Pending> processLocked(List<Pending> batch, BatchLocks locks)
            throws IOException, UnsettledBatch, RedoBatch, LockedOut {
        long t0 = System.nanoTime();
        Instant now = s.clock.instant().truncatedTo(ChronoUnit.SECONDS);
        WriteBatch b = new WriteBatch(s);
        // Refusals wait for the batch: a caller that hears "nothing to do" must also find the
        // captures its request triggered already published.
        List<Runnable> replies = new ArrayList<>();
        Optional<Failure> moved = intake.elsewhere();
        if (moved.isEmpty()) {
            moved = s.indexForm.refusal(); // before the captures: they read the index too
        }
        if (moved.isEmpty()) {
            moved = intake.captureCommits(b, now, locks);
        }
        if (moved.isEmpty()) {
            moved = s.lineEnds.refusal(); // after the commits: one of them may have brought the attribute
        }
        if (moved.isEmpty()) {
            moved = segmentCheck.check(b, now, locks);
        }
        if (moved.isPresent()) {
            if (!b.accepted.isEmpty()) {
                publisher.publish(b, now, locks); // what memoryd itself records of the refusal's cause (a drift item)
            }
            WriteOutcome refused = new WriteOutcome.Rejected(-1, moved.get());
            batch.forEach(p -> p.future().complete(refused));
            return List.of();
        }
        Map<String, Pending> keysInBatch = new HashMap<>();
        List<Pending> rest = List.of();
        for (int i = 0; i < batch.size(); i++) {
            if (i > 0 && b.heldChars() >= HELD_CHARS) { // at least one declaration a batch: always progress
                rest = new ArrayList<>(batch.subList(i, batch.size()));
                break;
            }
            Pending p = batch.get(i);
            WriteRequest req = p.req();
            if (req.idempotencyKey() != null) {
                IdempotentWrite prior = s.idempotent.get(req.idempotencyKey());
                if (prior != null) {
                    reply(replies, p, prior.answer(req.idempotencyKey(), req));
                    continue;
                }
                Pending twin = keysInBatch.putIfAbsent(req.idempotencyKey(), p);
                if (twin != null) {
                    Optional<WriteOutcome.Rejected> refused = IdempotentWrite.mismatch(
                            req.idempotencyKey(), twin.req().fingerprint(), req);
                    if (refused.isPresent()) {
                        reply(replies, p, refused.get());
                    } else {
                        twin.future().thenAccept(o -> p.future().complete(IdempotentWrite.replayed(o)));
                    }
                    continue;
                }
            }
            Mutation m = req.mutation() != null
                    ? req.mutation()
                    : new GrammarMutation(s.grammars, s.withSliceIds(req.ops()), s.hasher);
            boolean human = m instanceof Contextual;
            Map<RepoPath, String> dirty = new java.util.TreeMap<>(java.util.Comparator.comparing(RepoPath::value));
            Map<RepoPath, String> driftHit = new HashMap<>();
            FileSource src = human
                    ? b.source()
                    : path -> {
                        if (GrammarFiles.isGrammarFile(path)) {
                            return b.recorded(
                                    path); // the grammar in force is what the ledger recorded, never a hand edit
                        }
                        if (b.overlay.containsKey(path) && !b.committedByHuman(path)
                                || !RootLayout.isMemoryFile(path)) {
                            return b.source().read(path);
                        }
                        Optional<String> disk = b.disk(path);
                        b.drift().openOn(path).ifPresent(o -> driftHit.put(path, o.id()));
                        if (!disk.equals(b.recorded(path))) {
                            dirty.put(path, disk.orElse(null));
                        }
                        return disk;
                    };
            Mutation.Result r;
            try {
                r = (m instanceof Contextual c ? c.bind(b) : m).apply(src, now);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            } catch (UnmergedFile e) {
                reply(replies, p, new WriteOutcome.Rejected(-1, e.refusal()));
                continue;
            } catch (SecurityException | IllegalArgumentException e) {
                // Confined to this declaration: the batch's other declarations go on.
                reply(
                        replies,
                        p,
                        new WriteOutcome.Rejected(-1, Failure.of(ErrorReason.INVALID_REQUEST, e.getMessage())));
                continue;
            }
            if (!driftHit.isEmpty()) {
                reply(replies, p, driftRefusal(driftHit));
                continue;
            }
            Optional<RepoPath> dismissed = dirty.entrySet().stream()
                    .filter(e -> b.drift().dismissed(e.getKey(), e.getValue()))
                    .map(Map.Entry::getKey)
                    .findFirst();
            if (dismissed.isPresent()) {
                // That text cannot be recorded as the human's: written on top of, it would be committed as the agent's.
                reply(replies, p, dismissedRefusal(dismissed.get()));
                continue;
            }
            if (!dirty.isEmpty()) {
                // Invariant 4: what the human wrote is recorded first, under their name.
                Mutation.Done captured = intake.captureBefore(b, dirty, now);
                Set<RepoPath> drifted = HumanCapture.drifted(captured.events());
                if (!drifted.isEmpty()) {
                    Map<RepoPath, String> hit = new HashMap<>();
                    drifted.forEach(d -> b.drift().openOn(d).ifPresent(o -> hit.put(d, o.id())));
                    reply(replies, p, driftRefusal(hit));
                    continue;
                }
                if (r instanceof Mutation.Done done) {
                    Map<RepoPath, Set<String>> changed = HumanCapture.changedKeys(captured.events());
                    // A working copy that still holds memoryd's text after a human's commit took it back
                    // (made from an index that lacked it) changes nothing the agent saw.
                    changed.keySet().removeIf(path -> b.keptMemorydsText(path, dirty.get(path)));
                    Optional<WriteOutcome> clash = humanClash(changed, done);
                    if (clash.isPresent()) {
                        reply(replies, p, clash.get());
                        continue;
                    }
                }
            }
            if (r instanceof Mutation.Refused rej) {
                reply(replies, p, new WriteOutcome.Rejected(rej.opIndex(), rej.failure()));
                continue;
            }
            Mutation.Done a = (Mutation.Done) r;
            if (!a.changed() || a.events().isEmpty()) {
                replies.add(() -> p.future()
                        .complete(new WriteOutcome.Unchanged(
                                s.git.head() == null ? null : s.git.head().name())));
                continue;
            }
            try {
                if (req.mutation() == null && needsReview(b, a)) {
                    // Sections the user marked for review: the change goes to a proposal branch instead.
                    String id = s.ids.next().value();
                    b.accept(p, proposal(id, req, a, now), req, null, now, id);
                    continue;
                }
                b.accept(p, a, req, null, now);
            } catch (IllegalArgumentException e) {
                // A declaration no ledger line can hold (e.g. a string with no UTF-8 form): only it is refused.
                reply(
                        replies,
                        p,
                        new WriteOutcome.Rejected(-1, Failure.of(ErrorReason.INVALID_REQUEST, e.getMessage())));
            }
        }
        s.stats.add(PhaseStats.Phase.APPLY, System.nanoTime() - t0);
        List<WriteBatch.Accepted> accepted = b.accepted;
        if (!accepted.isEmpty()
                && s.files.workTree()
                && GitInProgress.of(s.git.repository()).isPresent()) {
            // git merge writes the tree and index, lets go of index.lock, and only then MERGE_HEAD:
            // files this batch read in between were git's conflict, not a human's edit. Nothing is
            // written yet; the next try is refused at its start.
            throw new RedoBatch();
        }
        if (!accepted.isEmpty()) {
            publisher.publish(b, now, locks);
        }
        replies.forEach(Runnable::run);
        return rest;
    }

    private static void reply(List<Runnable> replies, Pending p, WriteOutcome out) {
        replies.add(() -> p.future().complete(out));
    }

    private boolean needsReview(WriteBatch b, Mutation.Done a) {
        for (Mutation.EventSpec e : a.events()) {
            if (e.path() != null && RootLayout.isMemoryFile(e.path())) {
                Optional<String> before = b.source().read(e.path());
                if (before.isPresent() && dev.memoryd.grammar.Governance.needsReview(before.get(), e.sectionAnchor())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Turns an applied declaration into a proposal: its files are committed on a new branch
     * {@code proposals/<id>} from the branch head, and this branch records only a
     * {@code proposal_created} event holding the ops and the section hashes they were based on.
     */
    private Mutation.Done proposal(String id, WriteRequest req, Mutation.Done a, Instant now) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        a.newContents().forEach((path, t) -> files.put(path.value(), t.getBytes(StandardCharsets.UTF_8)));
        String branchName = "proposals/" + id;
        ObjectId commit = s.git.commitOnNewBranch(
                branchName,
                s.git.head(),
                files,
                CommitFormat.author(req.actor(), now),
                CommitFormat.committer(now),
                "proposal " + id + ": " + String.join("; ", Mutation.summaries(a.events())) + "\n\n"
                        + (req.rationale() == null ? "" : req.rationale().strip() + "\n\n") + "Memoryd-Actor: "
                        + req.actor() + "\n");
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        ObjectNode pr = payload.putObject("proposal");
        pr.put("id", id);
        pr.put("branch", branchName);
        pr.put("commit", commit.name());
        com.fasterxml.jackson.databind.node.ArrayNode ops = pr.putArray("ops");
        for (Op op : s.withSliceIds(req.ops())) {
            ops.add(OpCodec.toJson(op));
        }
        com.fasterxml.jackson.databind.node.ArrayNode base = pr.putArray("base");
        for (Mutation.EventSpec e : a.events()) {
            base.addObject()
                    .put("path", e.path() == null ? null : e.path().value())
                    .put("section", e.sectionAnchor())
                    .put("hash", e.beforeHash())
                    .put("summary", e.summary());
        }
        Mutation.EventSpec first = a.events().get(0);
        return new Mutation.Done(
                Map.of(),
                List.of(new Mutation.EventSpec(
                        WritePipeline.OP_PROPOSAL,
                        first.path(),
                        first.sectionAnchor(),
                        first.beforeHash(),
                        null,
                        payload,
                        List.of(),
                        "proposed " + String.join("; ", Mutation.summaries(a.events())) + " (for review)")),
                true);
    }

    private static WriteOutcome driftRefusal(Map<RepoPath, String> hit) {
        Map.Entry<RepoPath, String> first = hit.entrySet().iterator().next();
        return new WriteOutcome.Rejected(
                -1,
                new Failure(
                        ErrorReason.DRIFT,
                        first.getKey().value()
                                + " waits in the drift queue (item " + first.getValue()
                                + "): a human's change to it (an edit that breaks its grammar, a move or a deletion)"
                                + " is not recorded yet;"
                                + " a maintainer resolves it with 'memoryd drift resolve " + first.getValue() + "'",
                        Failure.ordered("path", first.getKey().value(), "drift_id", first.getValue())));
    }

    private static WriteOutcome dismissedRefusal(RepoPath path) {
        return new WriteOutcome.Rejected(
                -1,
                new Failure(
                        ErrorReason.DRIFT,
                        path.value() + " holds a human's edit that breaks its grammar and whose drift item a maintainer"
                                + " dismissed: memoryd cannot record that text as the human's, so it writes nothing on"
                                + " top of it; the file takes writes again once a human fixes it (or undoes the edit)",
                        java.util.Map.of("path", path.value())));
    }

    /** A conflict when an agent's op targets a section the human just changed. */
    private static Optional<WriteOutcome> humanClash(Map<RepoPath, Set<String>> changed, Mutation.Done agent) {
        for (Mutation.EventSpec e : agent.events()) {
            Set<String> keys = e.path() == null ? null : changed.get(e.path());
            if (keys != null && e.sectionAnchor() != null && keys.contains(e.sectionAnchor())) {
                return Optional.of(new WriteOutcome.Rejected(
                        -1,
                        new Failure(
                                ErrorReason.CONFLICT,
                                "section '"
                                        + e.sectionAnchor() + "' of " + e.path().value()
                                        + " was just changed by a human; their edit"
                                        + " is recorded, read the section again and retry",
                                Failure.ordered("path", e.path().value(), "section", e.sectionAnchor()))));
            }
        }
        return Optional.empty();
    }
}
