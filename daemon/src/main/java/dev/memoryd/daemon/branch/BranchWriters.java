package dev.memoryd.daemon.branch;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.write.GrammarFiles;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.Replayer;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.IdGenerator;
import dev.memoryd.ledger.Ledger;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/**
 * The writers of a root's branches: the checked-out branch's is the daemon's own; every other
 * branch gets a {@link WritePipeline} made on first use, whose files are its Git tree
 * ({@link GitTreeStore}), and stopped when the branch is deleted or the registry closed. Knows
 * which chains this root writes ({@code <branch>} or {@code <branch>@<replica>}). Thread-safe:
 * its methods synchronize on it, and so do the branch operations that must not interleave with a
 * writer's lookup ({@link BranchLifecycle}).
 */
final class BranchWriters implements AutoCloseable {
    private final Path root;
    private final GrammarFiles grammar;
    private final Ledger ledger;
    private final GitStore git;
    private final WritePipeline checkedOut;
    private final SectionHasher hasher;
    private final IdGenerator ids;
    private final Clock clock;
    private final int maxBatch;
    private final java.util.function.Consumer<WritePipeline> extensions;
    private final String replica; // null: the root that made the repository, whose chains are named like their branches
    private final Map<BranchName, WritePipeline> writers = new HashMap<>();
    private final java.util.Set<BranchName> deleting = new java.util.HashSet<>();

    BranchWriters(
            Path root,
            GrammarFiles grammar,
            Ledger ledger,
            GitStore git,
            WritePipeline checkedOut,
            SectionHasher hasher,
            IdGenerator ids,
            Clock clock,
            int maxBatch,
            java.util.function.Consumer<WritePipeline> extensions) {
        this.extensions = extensions;
        this.replica = checkedOut.chainName().replica().orElse(null);
        this.root = root;
        this.grammar = grammar;
        this.ledger = ledger;
        this.git = git;
        this.checkedOut = checkedOut;
        this.hasher = hasher;
        this.ids = ids;
        this.clock = clock;
        this.maxBatch = maxBatch;
    }

    /** Registers how to redo branch events on a writer (the checked-out one too: merges land there). */
    static void registerReplayers(WritePipeline w) {
        Replayer none = evs -> (src, now) -> new Mutation.Done(Map.of(), List.of(), true);
        w.registerReplayer(Branches.OP_FORK, none);
        w.registerReplayer(Branches.OP_DELETE, none);
        w.registerReplayer(Branches.OP_MERGE, MergeMutation::replay);
    }

    /** The chain this root writes for branch {@code b}: {@code b}, or {@code b@<replica>} on a replica. */
    BranchName chainOf(BranchName b) {
        return b.onReplica(replica);
    }

    /** Whether {@code chain} is one this root writes (the others are replicas', brought by sync). */
    boolean ours(BranchName chain) {
        return chain.replica().equals(Optional.ofNullable(replica));
    }

    /** This root's replica id; null on the root that made the repository. */
    String replica() {
        return replica;
    }

    /** The checked-out branch's name. */
    String checkedOutName() {
        return checkedOut.branch().value();
    }

    /** The daemon's own writer, of the checked-out branch. */
    WritePipeline checkedOut() {
        return checkedOut;
    }

    /** The writer of a branch: the daemon's for the checked-out one, else one made on first use. */
    synchronized Outcome<WritePipeline> writer(String name) throws IOException {
        if (name == null || name.equals(checkedOutName())) {
            return Outcome.ok(checkedOut);
        }
        BranchName b;
        try {
            b = new BranchName(name);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
        }
        if (deleting.contains(b) || git.branchHead(name).isEmpty()) {
            return Outcome.fail(
                    ErrorReason.NOT_FOUND, git.noBranch(name, " (see branch.list; branch.create makes one)"));
        }
        if (ledger.chain(chainOf(b)).head().seq() == 0) {
            return Outcome.fail(
                    ErrorReason.INVALID_REQUEST,
                    "branch '" + name + "' has no ledger chain (it was not made"
                            + " with branch.create or brought by sync; proposal branches change through proposals.accept)");
        }
        return Outcome.ok(writerOf(b));
    }

    synchronized WritePipeline writerOf(BranchName b) throws IOException {
        WritePipeline w = writers.get(b);
        if (w == null) {
            GitStore g = git.onBranch(b.value());
            w = new WritePipeline(
                    grammar, new GitTreeStore(g, root), g, ledger.chain(chainOf(b)), hasher, ids, clock, b, maxBatch);
            registerReplayers(w);
            extensions.accept(w);
            w.setChains(x -> ledger.branches().contains(x) ? Optional.of(ledger.chain(x)) : Optional.empty());
            w.recover();
            w.start();
            writers.put(b, w);
        }
        return w;
    }

    /** Marks a branch as being deleted (no new writes), or no longer. */
    synchronized void deleting(BranchName b, boolean on) {
        if (on) {
            deleting.add(b);
        } else {
            deleting.remove(b);
        }
    }

    /** Forgets a deleted branch's writer (its caller stops it). */
    synchronized void remove(BranchName b) {
        writers.remove(b);
    }

    static String actorOr(String actor) {
        return actor == null || actor.isBlank() ? "agent" : actor;
    }

    static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for the writer");
        } catch (ExecutionException e) {
            throw new IOException("the writer failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** Stops every branch writer this registry started (not the checked-out one's). */
    @Override
    public synchronized void close() {
        for (WritePipeline w : writers.values()) {
            w.close();
            w.git().close();
        }
        writers.clear();
    }

    /**
     * The files of a branch that is not checked out: its Git head's tree. Nothing is written to disk
     * (the commit is the write); the writer's overlay carries a batch's texts until its commit.
     */
    static final class GitTreeStore implements WritePipeline.FileStore {
        private final GitStore git;
        private final Path root;

        GitTreeStore(GitStore git, Path root) {
            this.git = git;
            this.root = root;
        }

        @Override
        public Optional<String> read(RepoPath p) throws IOException {
            return git.read(git.head(), p.value()).map(b -> new String(b, StandardCharsets.UTF_8));
        }

        @Override
        public void writeAll(Map<String, byte[]> files) {
            // the branch's commit holds the files; there is no working tree to write
        }

        @Override
        public WritePipeline.IoAction stage(Map<String, byte[]> files) {
            return () -> {};
        }

        @Override
        public Path root() {
            return root; // the ledger's segments are read from here when a recovery commits them
        }

        @Override
        public boolean workTree() {
            return false;
        }
    }
}
