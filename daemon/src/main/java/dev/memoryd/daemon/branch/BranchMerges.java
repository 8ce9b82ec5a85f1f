package dev.memoryd.daemon.branch;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.daemon.substrate.ChunkStore;
import dev.memoryd.daemon.substrate.MergeCheck;
import dev.memoryd.daemon.write.GrammarFiles;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Head;
import dev.memoryd.ledger.Ledger;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Merges into a branch, each run on the target branch's writer so it is ordered with that
 * branch's writes: {@code branch.merge} between local branches, and a sync's merge of a remote
 * head, which also takes other replicas' chains ({@link ReplicaChains}). The section-by-section
 * merge itself is {@link MergeMutation}; a merge's chunk files are checked against the spec rules
 * before anything is recorded.
 */
final class BranchMerges {
    private final GrammarFiles grammar;
    private final Ledger ledger;
    private final GitStore git;
    private final SectionHasher hasher;
    private final ChunkStore chunks; // the checked-out branch's: merges into it are checked against its writer's graph
    private final BranchWriters writers;
    private final BranchLifecycle lifecycle;

    BranchMerges(
            GrammarFiles grammar,
            Ledger ledger,
            GitStore git,
            SectionHasher hasher,
            ChunkStore chunks,
            BranchWriters writers,
            BranchLifecycle lifecycle) {
        this.grammar = grammar;
        this.ledger = ledger;
        this.git = git;
        this.hasher = hasher;
        this.chunks = chunks;
        this.writers = writers;
        this.lifecycle = lifecycle;
    }

    /**
     * {@code branch.merge}: merges {@code from} into {@code into} (default the checked-out branch) on
     * {@code into}'s writer. The result is {@code {commit}} (a commit with two parents), {@code
     * {commit, changed: false}} when {@code from} is already merged, or {@code {conflicts}} with
     * nothing recorded. A merge whose chunk files would break a spec rule fails with
     * {@code spec_violation} (as a {@code declare} would), nothing recorded.
     */
    Outcome<Merged> merge(String from, String into, Resolutions resolutions, String actor) throws IOException {
        String target = into == null ? writers.checkedOutName() : into;
        try {
            new BranchName(from);
            new BranchName(target);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
        }
        if (from.equals(target)) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "cannot merge branch '" + from + "' into itself");
        }
        if (resolutions instanceof Resolutions.Invalid bad) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, bad.message());
        }
        List<Resolution> rs = ((Resolutions.Given) resolutions).list();
        Optional<ObjectId> fromHead = BranchLifecycle.safeName(from) == null ? Optional.empty() : git.branchHead(from);
        if (fromHead.isEmpty()) {
            return Outcome.fail(ErrorReason.NOT_FOUND, git.noBranch(from, " to merge from"));
        }
        Outcome<WritePipeline> o = writers.writer(target);
        if (o instanceof Outcome.Failed<WritePipeline> f) {
            return Outcome.fail(f.failure());
        }
        WritePipeline w = ((Outcome.Ok<WritePipeline>) o).value();
        Optional<Head> h = LedgerTrailers.publishedHeadAt(git, fromHead.get(), null);
        Optional<BranchName> holder = h.isEmpty() ? Optional.empty() : lifecycle.chainHolding(h.get());
        MergeMutation m = new MergeMutation(
                w.git(),
                grammar,
                hasher,
                from,
                fromHead.get(),
                holder.map(BranchName::value).orElse(null),
                h.orElse(null),
                rs,
                chunkCheck(w));
        WriteOutcome out = BranchWriters.await(
                w.submit(WriteRequest.of(m, "merge " + from + " into " + target, BranchWriters.actorOr(actor))));
        if (out instanceof WriteOutcome.Committed c) {
            return Outcome.ok(new Merged.Committed(c.commit(), c.events().get(0).eventId()));
        }
        if (out instanceof WriteOutcome.Unchanged u) {
            return Outcome.ok(new Merged.AlreadyMerged(
                    u.commit(), "branch '" + from + "' is already merged into '" + target + "'; nothing recorded"));
        }
        Failure f = ((WriteOutcome.Rejected) out).failure();
        List<MergeConflict> conflicts = conflicts(f);
        if (conflicts != null) {
            return Outcome.ok(new Merged.Conflicted(conflicts, f.message()));
        }
        return Outcome.fail(f);
    }

    /**
     * A sync's merge of {@code theirs} (the remote's head of branch {@code name}, fetched as
     * {@code from}) into the local branch, on its writer. Other replicas' chains in theirs' tree are
     * taken when they extend ours (each chain has one writer, so one side is a prefix of the other);
     * the branch's files merge section by section as {@code branch.merge} does, recorded as one
     * {@code branch_merge} event linked to the chain line theirs records. When the merge changes
     * no file of the branch, nothing is recorded: the chains are committed alone, as a merge of
     * theirs unless the branch already contains it or theirs holds nothing new. That is what makes
     * two replicas that sync in turn settle instead of answering each other's merges forever.
     *
     * <p>{@code outcome}: {@code up_to_date}, {@code chains} (only other replicas' ledger lines were
     * new), {@code merged} (with {@code event_id}), {@code conflict} (with {@code conflicts};
     * nothing recorded), or {@code spec_violation} (with {@code violation: {rule, chunk, chunk_name?,
     * scope}}: the merged chunk files would break a spec rule; nothing recorded).
     */
    Outcome<SyncMerged> syncMerge(String name, ObjectId theirs, String from, Resolutions resolutions, String actor)
            throws IOException {
        if (resolutions instanceof Resolutions.Invalid bad) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, bad.message());
        }
        List<Resolution> rs = ((Resolutions.Given) resolutions).list();
        BranchName bn = BranchLifecycle.safeName(name);
        if (bn != null
                && !name.equals(writers.checkedOutName())
                && ledger.chain(writers.chainOf(bn)).head().seq() == 0) {
            return Outcome.ok(new SyncMerged.Skipped("the local branch has no chain of this root"
                    + " (made with git, or a proposal branch): not merged"));
        }
        Outcome<WritePipeline> o = writers.writer(name);
        if (o instanceof Outcome.Failed<WritePipeline> f) {
            return Outcome.fail(f.failure());
        }
        WritePipeline w = ((Outcome.Ok<WritePipeline>) o).value();
        GitStore g = w.git();
        ObjectId ours = g.refNow();
        Map<String, byte[]> chains;
        try {
            chains = ReplicaChains.foreignChains(g, ours, theirs, writers::ours);
        } catch (IllegalStateException e) {
            return Outcome.fail(ErrorReason.CONFLICT, e.getMessage());
        }
        if (g.isAncestor(theirs, ours)) {
            if (!rs.isEmpty()) { // nothing to merge, so nothing a resolution could match
                Resolution x = rs.get(0);
                return Outcome.fail(
                        ErrorReason.INVALID_REQUEST,
                        "resolution " + x.path() + "#" + x.section() + "=" + x.take()
                                + " matches no conflicting section: " + from + " holds nothing " + name
                                + " lacks; nothing was merged");
            }
            if (chains.isEmpty()) {
                return Outcome.ok(new SyncMerged.UpToDate());
            }
            ObjectId c = ReplicaChains.commitForeign(
                    w, chains, "memoryd: sync: other replicas' ledger lines from " + from, null);
            return Outcome.ok(new SyncMerged.Chains(c.name(), true));
        }
        Optional<LedgerTrailers.RecordedHead> link = LedgerTrailers.ledgerHeadAt(g, theirs, name);
        Map<RepoPath, String> ledgerTexts = new LinkedHashMap<>();
        chains.forEach((p, b) -> ledgerTexts.put(RepoPath.of(p), new String(b, StandardCharsets.UTF_8)));
        MergeMutation m = new MergeMutation(
                g,
                grammar,
                hasher,
                from,
                theirs,
                link.map(e -> e.chain().value()).orElse(null),
                link.map(LedgerTrailers.RecordedHead::head).orElse(null),
                rs,
                chunkCheck(w),
                ledgerTexts,
                true);
        WriteOutcome out = BranchWriters.await(
                w.submit(WriteRequest.of(m, "sync " + from + " into " + name, BranchWriters.actorOr(actor))));
        if (out instanceof WriteOutcome.Committed c) {
            return Outcome.ok(
                    new SyncMerged.Committed(c.commit(), c.events().get(0).eventId()));
        }
        if (out instanceof WriteOutcome.Unchanged) {
            if (chains.isEmpty() && g.isAncestor(ours, theirs)) {
                return Outcome.ok(new SyncMerged.UpToDate()); // theirs only adds merges of what we hold
            }
            ObjectId c = ReplicaChains.commitForeign(
                    w, chains, "memoryd: sync: merged " + from + " (no file of " + name + " changed)", theirs);
            return Outcome.ok(new SyncMerged.Chains(c.name(), false));
        }
        Failure f = ((WriteOutcome.Rejected) out).failure();
        List<MergeConflict> conflicts = conflicts(f);
        if (conflicts != null || f.reason() == ErrorReason.SPEC_VIOLATION) {
            // The merge waits for the user; the other replicas' lines, on disk already (so links
            // verify), are committed alone rather than left in the working tree for a human's commit.
            if (!chains.isEmpty()) {
                ReplicaChains.commitForeign(
                        w,
                        chains,
                        "memoryd: sync: other replicas' ledger lines from " + from + " (its merge waits)",
                        null);
            }
        }
        if (conflicts != null) {
            return Outcome.ok(new SyncMerged.Conflicted(conflicts, f.message()));
        }
        if (f.reason() == ErrorReason.SPEC_VIOLATION) {
            // Like a conflict: this branch is left unmerged (and unpushed) until one side is changed.
            Map<String, String> v = new LinkedHashMap<>();
            f.details().forEach((k, x) -> v.put(k, String.valueOf(x)));
            return Outcome.ok(new SyncMerged.SpecViolation(f.message(), v));
        }
        return Outcome.fail(f);
    }

    /**
     * How a merge into {@code w}'s branch checks the chunk files it writes: against the checked-out
     * branch's writer graph (which holds its batch's declarations so far), or for another branch
     * against a graph read from its files.
     */
    private MergeMutation.ChunkCheck chunkCheck(WritePipeline w) {
        if (w == writers.checkedOut()) {
            return (files, ours, chunkFiles) -> chunks.checkMerge(chunkFiles);
        }
        return (files, ours, chunkFiles) -> MergeCheck.check(MergeCheck.graphAt(w.git(), ours, files), chunkFiles);
    }

    /** A merge refusal's {@code details.conflicts}; null when it has none. */
    private static List<MergeConflict> conflicts(Failure f) {
        if (f.reason() != ErrorReason.CONFLICT || !(f.details().get("conflicts") instanceof List<?> list)) {
            return null;
        }
        List<MergeConflict> out = new java.util.ArrayList<>();
        for (Object x : list) {
            Map<?, ?> k = (Map<?, ?>) x;
            out.add(new MergeConflict(
                    text(k.get("path")),
                    text(k.get("section")),
                    text(k.get("base")),
                    text(k.get("ours")),
                    text(k.get("theirs"))));
        }
        return out;
    }

    private static String text(Object v) {
        return v == null ? null : String.valueOf(v);
    }
}
