package dev.memoryd.daemon.branch;

import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.substrate.ChunkStore;
import dev.memoryd.daemon.write.GrammarFiles;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.IdGenerator;
import dev.memoryd.ledger.Ledger;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The branches of one memory root: Git branches, each with its own ledger chain and, once written
 * to, its own single {@link WritePipeline}. The checked-out branch's writer is the daemon's own
 * (working tree, human-edit capture, extensions); every other branch gets a writer created on
 * first use whose files are its Git tree ({@link GitTreeStore}): a write there makes ledger lines
 * under {@code ledger/<branch>/} and a commit on the branch, and leaves the working tree, the
 * index and every other ref alone.
 *
 * <p>Chains link up: a branch's chain starts with {@code branch_fork} (whose {@code payload.link}
 * names the parent chain's line the fork commit records), a merge appends {@code branch_merge}
 * (linking the merged chain's line), and a deletion {@code branch_delete}; {@code ledger verify}
 * checks every link. Durability: create appends and fsyncs the fork line before the fork commit
 * and ref exist; delete commits its line before the ref is retired to
 * {@code refs/memoryd/deleted/<branch>} (kept for history, hidden from {@code git branch});
 * {@link #load} finishes either after a crash.
 *
 * <p>Thread-safety: create, delete and writer lookup are synchronized; a merge runs on the target
 * branch's writer thread, so it is ordered with that branch's writes.
 *
 * <p>This class is the entry point; the work is done by {@link BranchWriters} (the writers and
 * which chains are this root's), {@link BranchLifecycle} (create, delete, load, list),
 * {@link BranchMerges} (branch and sync merges) and {@link ReplicaChains} (other replicas'
 * chains).
 */
public final class Branches implements AutoCloseable {
    public static final String OP_FORK = "branch_fork";
    public static final String OP_MERGE = MergeMutation.OP;
    public static final String OP_DELETE = "branch_delete";

    private final BranchWriters writers;
    private final BranchLifecycle lifecycle;
    private final BranchMerges merges;

    /**
     * {@code chunks} is the substrate of the checked-out branch, served by {@code checkedOut};
     * {@code extensions} registers, on each other branch's writer before its recovery, the
     * replayers of events that branch may hold but that {@code branch} does not own (a section
     * lock, a grammar change), so recovery, replay and merges there redo them as the checked-out
     * writer does.
     */
    public Branches(
            Path root,
            GrammarFiles grammar,
            Ledger ledger,
            GitStore git,
            WritePipeline checkedOut,
            ChunkStore chunks,
            SectionHasher hasher,
            IdGenerator ids,
            Clock clock,
            int maxBatch,
            java.util.function.Consumer<WritePipeline> extensions) {
        this.writers =
                new BranchWriters(root, grammar, ledger, git, checkedOut, hasher, ids, clock, maxBatch, extensions);
        this.lifecycle = new BranchLifecycle(root, ledger, git, ids, clock, writers);
        this.merges = new BranchMerges(grammar, ledger, git, hasher, chunks, writers, lifecycle);
    }

    /** Registers how to redo branch events on a writer (the checked-out one too: merges land there). */
    public static void registerReplayers(WritePipeline w) {
        BranchWriters.registerReplayers(w);
    }

    /** The chain this root writes for branch {@code b}: {@code b}, or {@code b@<replica>} on a replica. */
    public BranchName chainOf(BranchName b) {
        return writers.chainOf(b);
    }

    /** Whether {@code chain} is one this root writes (the others are replicas', brought by sync). */
    public boolean ours(BranchName chain) {
        return writers.ours(chain);
    }

    /** This root's replica id; null on the root that made the repository. */
    public String replica() {
        return writers.replica();
    }

    /** The checked-out branch's name. */
    public String checkedOutName() {
        return writers.checkedOutName();
    }

    /**
     * Finishes what a crash cut short: a fork line with no branch gets its commit and ref, a
     * branch whose chain ends in its deletion has its ref retired, and a branch whose chain runs
     * past its head has its writer started now (its recovery rolls the tail forward).
     */
    public void load() throws IOException {
        lifecycle.load();
    }

    /** The writer of a branch: the daemon's for the checked-out one, else one made on first use. */
    public Outcome<WritePipeline> writer(String name) throws IOException {
        return writers.writer(name);
    }

    /** Whether {@code name} is a local branch (the checked-out one included). */
    public boolean exists(String name) throws IOException {
        return lifecycle.exists(name);
    }

    /** The head commit of a local branch. */
    public Optional<ObjectId> head(String name) throws IOException {
        return lifecycle.head(name);
    }

    /** One row of {@code branch.list}. */
    public record Info(String name, String head, boolean checkedOut, long chainLines) {}

    /** Every local branch, sorted by name, with its head and its chain's line count. */
    public List<Info> list() throws IOException {
        return lifecycle.list();
    }

    /**
     * {@code branch.create}: a new branch at {@code from} (a branch, default the checked-out one, or
     * any commit), whose chain starts with a {@code branch_fork} line linked to the line the
     * from-commit records, and whose first commit (on top of the from-commit) holds that line.
     */
    public Outcome<Forked> create(String name, String from, String actor) throws IOException {
        return lifecycle.create(name, from, actor);
    }

    /**
     * The chains of branches other than the checked-out one live under {@code ledger/} on disk but
     * are committed only on their own branches: keep them out of the checked-out branch's
     * {@code git status} (the repository's local exclude file, never {@code .gitignore}).
     */
    public void excludeChain(BranchName b) throws IOException {
        lifecycle.excludeChain(b);
    }

    /**
     * {@code branch.delete}: records {@code branch_delete} on the branch's chain (its last line and
     * commit), stops its writer, then retires its ref to {@code refs/memoryd/deleted/<name>}. The
     * commits and the chain stay.
     */
    public Outcome<Deleted> delete(String name, String actor) throws IOException {
        return lifecycle.delete(name, actor, null);
    }

    /**
     * {@link #delete(String, String)}, only if the branch holds no work beyond {@code retired} (another
     * root's retired head of it, see {@link GitStore#workBeyond}) when its deletion's turn on the
     * writer comes; otherwise {@code conflict} and nothing recorded. {@code retired} null: no
     * condition. Payload {@code retired_elsewhere} names that commit.
     */
    public Outcome<Deleted> delete(String name, String actor, ObjectId retired) throws IOException {
        return lifecycle.delete(name, actor, retired);
    }

    /**
     * {@code branch.merge}: merges {@code from} into {@code into} (default the checked-out branch) on
     * {@code into}'s writer: a commit with two parents, nothing when {@code from} is already merged,
     * or the conflicts with nothing recorded. Resolutions that could not be read are
     * {@code invalid_request}, after the branch names are checked. A merge whose chunk files would break a spec rule fails with
     * {@code spec_violation} (as a {@code declare} would), nothing recorded.
     */
    public Outcome<Merged> merge(String from, String into, Resolutions resolutions, String actor) throws IOException {
        return merges.merge(from, into, resolutions, actor);
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
     * <p>The outcome is one of {@link SyncMerged}'s; resolutions that could not be read fail with
     * {@code invalid_request}.
     */
    public Outcome<SyncMerged> syncMerge(
            String name, ObjectId theirs, String from, Resolutions resolutions, String actor) throws IOException {
        return merges.syncMerge(name, theirs, from, resolutions, actor);
    }

    /** {@code ledger/<chain>/<group>/<segment>.ndjson} → the chain; null for any other path. */
    public static BranchName chainOfPath(String path) {
        return ReplicaChains.chainOfPath(path);
    }

    /**
     * A replica's first start: its chain of the checked-out branch is empty while the branch holds
     * history another root recorded (a commit with a ledger head). Appends (and fsyncs) a {@code branch_fork} line linked to the line
     * the head records, then commits it on the head; a crash between the two is finished by the
     * writer's recovery, which commits the line. Call before the writer is made.
     */
    public static void forkReplicaChain(GitStore git, Chain chain, IdGenerator ids, Clock clock) throws IOException {
        ReplicaChains.forkReplicaChain(git, chain, ids, clock);
    }

    /** Stops every branch writer this registry started (not the checked-out one's). */
    @Override
    public void close() {
        writers.close();
    }
}
