package dev.memoryd.daemon.git;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * The memory repository as seen by the writer: low-level commits ({@link CommitBatch}: inserter +
 * incremental tree + ref compare-and-swap) on one branch, reads at any commit ({@link GitReads}),
 * and the index kept in step so plain {@code git status} stays clean after daemon writes
 * ({@link IndexSync}). The branch's ref lock is {@link RefLock}; a ref move's outcome is a
 * {@link RefMove}. This class owns the branch's head and tree image, which those parts share,
 * and offers their operations under the names the other packages use: that is why it is longer
 * than a class with one job should be (most of it is one-line delegations with their contracts).
 *
 * <p>Commits and index updates must come from one thread (the writer); reads may come from any.
 * Git objects are not fsynced: the ledger, fsynced first, is the write-ahead log from which
 * recovery rebuilds what a crash cut short.
 */
public final class GitStore implements AutoCloseable {
    static {
        // JGit's default SHA-1 is pure Java with collision detection, the largest CPU cost of a
        // commit. Every object here is built by the daemon from text, not received from a remote,
        // so the JDK's intrinsic SHA-1 is used unless the operator chose otherwise.
        if (System.getProperty("org.eclipse.jgit.util.sha1.implementation") == null) {
            System.setProperty("org.eclipse.jgit.util.sha1.implementation", "jdkNative");
        }
    }

    private final Repository repo;
    private final String branchRef;
    private final TreeModel tree = new TreeModel();
    private final GitReads reads;
    private final RefLock refLock;
    private ObjectId head;
    /** A store made by {@link #onBranch} shares its repository and does not close it. */
    private final boolean sharedRepo;
    /** The packs roll-ups replaced, shared by every store of this repository (one object database). */
    private final ReplacedPacks replacedPacks;
    /**
     * The inserter of the last closed batch, kept for the next: a new one per batch (its zlib
     * stream, digest and buffers) was a visible part of a one-declaration batch's cost.
     */
    private final AtomicReference<BatchPackInserter> spareInserter = new AtomicReference<>();
    /** The large blobs' pieces from batch to batch, deflated at the batches' level (1). */
    private final PieceDeflater pieces = new PieceDeflater(1);
    /** Empty files made ahead for batches' packs, off the writer's way (see {@link FilesAhead}). */
    private final FilesAhead filesAhead;
    /** How a batch's pack is forced to disk before the ref names it; a test may watch it (see {@link #forcingWith}). */
    private volatile Forcer forcer = Forcer.FILES;

    private GitStore(Repository repo, String branch, ReplacedPacks replacedPacks, boolean sharedRepo)
            throws IOException {
        this.repo = repo;
        this.replacedPacks = replacedPacks;
        this.sharedRepo = sharedRepo;
        this.branchRef = Constants.R_HEADS + branch;
        this.reads = new GitReads(repo);
        this.refLock = new RefLock(repo.getDirectory().toPath(), branchRef);
        this.filesAhead = new FilesAhead(repo.getDirectory().toPath());
        this.head = repo.resolve(branchRef);
        if (head != null) {
            seedTree(head);
        }
    }

    /** Creates a repository at {@code root} on branch {@code branch} if there is none. */
    public static void init(Path root, String branch) throws IOException {
        if (Files.isDirectory(root.resolve(".git"))) {
            return;
        }
        try (Git git =
                Git.init().setDirectory(root.toFile()).setInitialBranch(branch).call()) {
            git.getRepository().getConfig().setBoolean("core", null, "autocrlf", false);
            git.getRepository().getConfig().save();
        } catch (GitAPIException e) {
            throw new IOException("cannot create a Git repository at " + root + ": " + e.getMessage(), e);
        }
    }

    public static GitStore open(Path root, String branch) throws IOException {
        Repository r = new FileRepositoryBuilder()
                .setGitDir(root.resolve(".git").toFile())
                .setWorkTree(root.toFile())
                .setMustExist(true)
                .build();
        // Loose objects are written on the hot path; zlib level 1 costs a fraction of the default
        // for a few percent more bytes (git gc repacks them anyway). In-memory only.
        r.getConfig().setInt("core", null, "compression", 1);
        return new GitStore(r, branch, new ReplacedPacks(), false);
    }

    public Repository repository() {
        return repo;
    }

    /** The full name of the branch this store commits on ({@code refs/heads/main}). */
    public String branchRef() {
        return branchRef;
    }

    /** Git config key of this clone's replica id ({@code [memoryd] replica = laptop}); per clone, never committed. */
    public static final String REPLICA_KEY = "memoryd.replica";

    /**
     * This clone's replica id, or null on the root that made the repository: a replica writes its
     * chains as {@code <branch>@<replica>}, so two roots never append to one chain.
     *
     * @throws IllegalStateException if the configured id is not a valid replica id
     */
    public String replica() {
        String r = repo.getConfig().getString("memoryd", null, "replica");
        if (r == null || r.isEmpty()) {
            return null;
        }
        if (!dev.memoryd.ledger.BranchName.REPLICA.matcher(r).matches()) {
            throw new IllegalStateException(
                    "git config " + REPLICA_KEY + " = '" + r + "' is not a replica id (1-32 of a-z,"
                            + " 0-9 and -); fix it with 'git config " + REPLICA_KEY + " <id>'");
        }
        return r;
    }

    /**
     * A store whose commits move branch {@code branch} instead, over the same repository (one
     * object database, so one pack roll-up at a time; see {@link #compactPacks}). Closing it leaves
     * the repository open. The same threading rule holds: one writer thread per store.
     */
    public GitStore onBranch(String branch) throws IOException {
        return new GitStore(repo, branch, replacedPacks, true);
    }

    /** The branch this store commits to (without {@code refs/heads/}). */
    public String branch() {
        return branchRef.substring(Constants.R_HEADS.length());
    }

    /** The branch's full ref name. */
    String ref() {
        return branchRef;
    }

    // ---------------------------------------------------------------- the branch's head and tree

    /** The branch head, or null before the first commit. */
    public ObjectId head() {
        return head;
    }

    /** Re-reads the branch ref (e.g. after another process moved it). */
    public ObjectId reloadHead() throws IOException {
        ObjectId now = repo.resolve(branchRef);
        if (now != null && !now.equals(head)) {
            head = now;
            seedTree(now);
        }
        return head;
    }

    /**
     * Takes {@code commit} as the branch head, the value a caller read from the ref under its lock
     * ({@link #refNow}): {@link #reloadHead} asks JGit, whose cached view of a ref file rewritten
     * within the file system's timestamp granularity can still be the old one.
     */
    public void headAt(ObjectId commit) throws IOException {
        if (!commit.equals(head)) {
            head = commit;
            seedTree(commit);
        }
    }

    private void seedTree(ObjectId commit) throws IOException {
        tree.clear();
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = new TreeWalk(repo)) {
            RevCommit c = rw.parseCommit(commit);
            tw.addTree(c.getTree());
            tw.setRecursive(true);
            while (tw.next()) {
                tree.put(tw.getPathString(), tw.getObjectId(0), tw.getFileMode(0));
            }
        }
    }

    /** Puts the tree image back to the head's, after a batch that did not publish changed it. */
    void reseedTree() {
        try {
            if (head != null) {
                seedTree(head);
            } else {
                tree.clear();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot re-read the tree of " + branchRef, e);
        }
    }

    /** The mode the branch's tree gives {@code path} (null when absent): kept by memoryd's writes. */
    public FileMode modeOf(String path) {
        return tree.mode(path);
    }

    /**
     * The branch ref as it is on disk now (another process, such as a human's {@code git commit},
     * may have moved it); does not change {@link #head()}.
     */
    public ObjectId refNow() throws IOException {
        ObjectId loose = refLock.looseValue();
        if (loose != null) {
            return loose;
        }
        Ref r = repo.getRefDatabase().exactRef(branchRef);
        return r == null ? null : r.getObjectId();
    }

    // ---------------------------------------------------------------- reads (GitReads)

    /** Every local branch and its head, sorted by name. */
    public SortedMap<String, ObjectId> branches() throws IOException {
        return reads.branches();
    }

    /** Where a deleted branch's ref goes: history stays reachable, {@code git branch} no longer lists it. */
    public static final String RETIRED_PREFIX = "refs/memoryd/deleted/";

    /**
     * What to tell someone who named branch {@code name}, which does not exist: that it was
     * deleted (its head retired, its name kept by its ledger chain), or that there is none, with
     * {@code hint} (what to do about it).
     */
    public String noBranch(String name, String hint) throws IOException {
        if (repository().exactRef(RETIRED_PREFIX + name) != null) {
            return "branch '" + name + "' was deleted (its last head is kept as " + RETIRED_PREFIX + name
                    + "); its name stays with its ledger chain, so a new branch needs another";
        }
        return "no branch '" + name + "'" + hint;
    }

    /** The head of local branch {@code name}, read from the ref database now. */
    public Optional<ObjectId> branchHead(String name) throws IOException {
        return reads.branchHead(name);
    }

    /** The best common ancestor of two commits (JGit's merge-base), if they share history. */
    public Optional<ObjectId> mergeBase(ObjectId a, ObjectId b) throws IOException {
        return reads.mergeBase(a, b);
    }

    /** Whether {@code ancestor} is {@code commit} or reachable from it; a null ancestor is. */
    public boolean isAncestor(ObjectId ancestor, ObjectId commit) throws IOException {
        return reads.isAncestor(ancestor, commit);
    }

    /** Paths whose blob differs between two commits (null: the empty tree), filtered. */
    public List<String> changedPaths(ObjectId from, ObjectId to, Predicate<String> keep) throws IOException {
        return reads.changedPaths(from, to, keep);
    }

    /** A commit's id, author, committer and subject. */
    public record CommitInfo(ObjectId id, PersonIdent author, PersonIdent committer, String subject) {
        /**
         * The person whose change the commit is: its author, unless the author is an agent's
         * identity memoryd gave a commit of its own ({@link CommitFormat#isAgentAuthor}), which git
         * keeps when a human amends, rebases or cherry-picks that commit: then its committer.
         */
        public PersonIdent person() {
            return CommitFormat.isAgentAuthor(author) ? committer : author;
        }
    }

    /** Commits reachable from {@code to} but not from {@code from}, newest first, at most {@code max}. */
    public List<CommitInfo> commitsBetween(ObjectId from, ObjectId to, int max) throws IOException {
        return reads.commitsBetween(from, to, max);
    }

    /**
     * Commits of {@code tip} that {@code base} lacks, at most {@code max}, when {@code tip} changes
     * a file outside {@code ledger/} since their merge base (or they share no history); empty when
     * {@code tip} is {@code base}, an ancestor of it, or adds only ledger lines (other replicas'
     * fork and chain commits), which is what lets a branch deleted on one root be deleted where it
     * was merely synced.
     */
    public List<ObjectId> workBeyond(ObjectId base, ObjectId tip, int max) throws IOException {
        return reads.workBeyond(base, tip, max);
    }

    /** Abbreviated commit ids, comma-separated (for messages). */
    public static String shortIds(List<ObjectId> ids) {
        StringBuilder b = new StringBuilder();
        for (ObjectId id : ids) {
            b.append(b.length() == 0 ? "" : ", ").append(id.abbreviate(10).name());
        }
        return b.toString();
    }

    /** All file paths in the head tree. */
    public List<String> listFiles(ObjectId commit) throws IOException {
        return reads.listFiles(commit, null);
    }

    /** Every file path in {@code commit}'s tree under directory {@code dir} (all when null). */
    public List<String> listFiles(ObjectId commit, String dir) throws IOException {
        return reads.listFiles(commit, dir);
    }

    /** A file's bytes at a commit, or empty if it does not exist there. */
    public Optional<byte[]> read(ObjectId commit, String path) throws IOException {
        return reads.read(commit, path);
    }

    /** The blob ids {@code commit}'s tree holds at those of {@code paths} it has as files. */
    public Map<String, ObjectId> blobIds(ObjectId commit, java.util.Collection<String> paths) throws IOException {
        return reads.blobIds(commit, paths);
    }

    /**
     * As {@link #blobIds} for the branch head, from the tree image kept in step with it: no object
     * is read (the head's commit is in the pack the last batch wrote, whose index JGit would read
     * first). Read from the objects while a batch is open, whose commits change the image before
     * its ref moves. The writer's thread only.
     */
    public Map<String, ObjectId> headBlobIds(java.util.Collection<String> paths) throws IOException {
        if (openBatches.get() > 0) {
            return blobIds(head, paths);
        }
        Map<String, ObjectId> out = new java.util.LinkedHashMap<>();
        if (head == null) {
            return out;
        }
        for (String p : paths) {
            ObjectId b = tree.blob(p);
            if (b != null && tree.mode(p).getObjectType() == org.eclipse.jgit.lib.Constants.OBJ_BLOB) {
                out.put(p, b);
            }
        }
        return out;
    }

    /** Resolves a revision string (commit id, branch, {@code HEAD~2}) or returns empty. */
    public Optional<ObjectId> resolve(String rev) {
        return reads.resolve(rev);
    }

    /** The trailers ({@code Key: value} lines of the last paragraph) of a commit, in order. */
    public List<Map.Entry<String, String>> trailers(ObjectId commit) throws IOException {
        return reads.trailers(commit);
    }

    /** The trailers of a commit message. */
    public static List<Map.Entry<String, String>> parseTrailers(String message) {
        return GitReads.parseTrailers(message);
    }

    // ---------------------------------------------------------------- other refs (RefWrites)

    /**
     * Moves ref {@code from} (a full ref name) to {@code to}: {@code to} is created at the value
     * {@code from} holds (which must be {@code expected}), then {@code from} is deleted. Used to
     * retire a deleted branch's ref where {@code git branch} does not list it but {@code git gc}
     * keeps its history.
     */
    public void retireRef(String from, String to, ObjectId expected) throws IOException {
        RefWrites.retireRef(repo, from, to, expected, RefWrites.Force.FSYNC);
    }

    /**
     * Creates branch {@code ref} (which must not exist) at a new commit: {@code parent}'s tree
     * with {@code files} replaced. For proposals; the checked-out branch and the working tree are
     * not touched.
     */
    public ObjectId commitOnNewBranch(
            String ref,
            ObjectId parent,
            Map<String, byte[]> files,
            PersonIdent author,
            PersonIdent committer,
            String message)
            throws IOException {
        return RefWrites.commitOnNewBranch(repo, ref, parent, files, author, committer, message, RefWrites.Force.FSYNC);
    }

    // ---------------------------------------------------------------- commits (CommitBatch)

    /**
     * Batches begun and not closed (or closed with a failure): while any is, the tree image may not
     * be the head's.
     */
    private final java.util.concurrent.atomic.AtomicInteger openBatches =
            new java.util.concurrent.atomic.AtomicInteger();

    /** A batch closed: see {@link #openBatches}. */
    void batchClosed() {
        openBatches.decrementAndGet();
    }

    /** Starts a group of chained commits that share one object flush and one ref update. */
    public CommitBatch batch() {
        openBatches.incrementAndGet();
        // One pack per batch instead of one file per object: a declaration makes about a dozen
        // objects (blobs, the trees on their paths, the commit), and writing each as a loose file
        // dominated the cost of a write. PackCompactor keeps the pack count down.
        BatchPackInserter s = spareInserter.getAndSet(null);
        return new CommitBatch(
                this,
                tree,
                s != null
                        ? s
                        : new BatchPackInserter((ObjectDirectory) repo.getObjectDatabase(), 1, filesAhead, forcer),
                pieces);
    }

    /** Forces batches' packs with {@code f} from the next batch on: for tests that check what is forced before a ref moves. */
    void forcingWith(Forcer f) {
        forcer = f;
        BatchPackInserter spare = spareInserter.getAndSet(null);
        if (spare != null) {
            spare.close();
        }
    }

    /** Takes back a closed batch's inserter for the next batch. */
    void giveBack(BatchPackInserter ins) {
        ins.reset(); // drops what a failed batch never flushed
        if (!spareInserter.compareAndSet(null, ins)) {
            ins.close();
        }
    }

    /** Rolls small packs into bigger ones when there are many; returns packs combined. */
    public int compactPacks() throws IOException {
        // A running git gc (it holds gc.pid) repacks everything anyway: no roll-up beside it.
        if (GcLock.heldByOther(repo.getDirectory().toPath())) {
            return 0;
        }
        // Stores of several branches share the repository: one roll-up at a time.
        synchronized (repo) {
            return PackCompactor.maybeCompact(repo, replacedPacks);
        }
    }

    // ---------------------------------------------------------------- the ref lock (RefLock)

    /**
     * Moves the branch from {@code expected} to {@code target}: compare-and-swap under the ref lock
     * (the one {@link #holdRef} holds, else taken here), written and renamed as git does; no
     * reflog. When the branch moved under us, the store's head and tree follow it.
     */
    RefMove swap(ObjectId expected, ObjectId target) throws IOException {
        RefMove m = refLock.swap(expected, target, this::refNow);
        switch (m.result()) {
            case MOVED -> head = target;
            case MOVED_UNDER_US -> {
                head = m.current();
                if (head != null) {
                    seedTree(head);
                }
            }
            default -> {}
        }
        return m;
    }

    /**
     * Moves the branch back to {@code target} from {@code expected} (compare-and-swap), the store's
     * head and tree with it: for undoing a move no one asked for ({@link StaleReset}).
     */
    public RefMove restoreRef(ObjectId expected, ObjectId target) throws IOException {
        RefMove m = swap(expected, target);
        if (m.result() == RefMove.Result.MOVED) {
            seedTree(target);
        }
        return m;
    }

    /**
     * Writes {@code target} into the ref lock {@link #holdRef} holds and forces it, ahead of the
     * move: renaming a file whose bytes are on disk already costs the file system no writeback
     * (ext4 flushes a file renamed over another), so the rename under git's index lock is quick.
     * The ref's value is checked against {@code expected} here too, and since the lock is held
     * from then on, the move need not read it again. Nothing changes for git until the move; a
     * no-op without a held lock.
     */
    public void prepareRef(ObjectId expected, ObjectId target) throws IOException {
        refLock.prepare(expected, target, this::refNow);
    }

    /**
     * Takes the branch's {@code <ref>.lock} the way git does and keeps it until the next
     * {@link CommitBatch#moveRef} (which writes and renames it) or {@link #releaseRef}: while the
     * writer holds it, a {@code git commit} on the branch fails to lock the ref instead of moving it
     * under a batch whose ledger lines are already durable. Waits up to {@code waitMs} for a lock
     * another process holds; false if it is still there.
     */
    public boolean holdRef(long waitMs) throws IOException {
        return refLock.hold(waitMs);
    }

    /** Gives back a lock {@link #holdRef} took and no ref update used. */
    public void releaseRef() throws IOException {
        refLock.release();
    }

    /** The lock file of the branch ref (for messages). */
    public Path refLockFile() {
        return refLock.lockFile();
    }

    // ---------------------------------------------------------------- the index (IndexSync)

    /**
     * Records the given working-tree files in the index as clean at these blob ids, so that a
     * human's {@code git status} shows no spurious changes. Returns false if the index is locked
     * by someone else (retry later).
     */
    public boolean updateIndex(Path workTree, Map<String, ObjectId> blobs) throws IOException {
        return updateIndex(workTree, blobs, Set.of());
    }

    /** See {@link IndexSync#stillAt}. */
    public Map<String, ObjectId> stillAt(Path workTree, Map<String, ObjectId> blobs, Map<String, Long> sizes)
            throws IOException {
        return IndexSync.stillAt(repo, workTree, blobs, sizes);
    }

    /** As {@link #updateIndex(Path, Map)}, also removing {@code removed} from the index. */
    public boolean updateIndex(Path workTree, Map<String, ObjectId> blobs, Set<String> removed) throws IOException {
        return IndexSync.update(repo, workTree, blobs, removed, this::modeOf);
    }

    /**
     * After a crash the index may lag the branch: records every head-tree file whose working copy
     * has exactly the head's bytes as clean. Files that differ (a human's edits) are left alone.
     */
    public boolean syncIndexToHead(Path workTree) throws IOException {
        if (head == null) {
            return true;
        }
        return updateIndex(workTree, IndexSync.cleanAtHead(repo, workTree, head));
    }

    /** Removes stale JGit lock files and object temp files a killed writer may have left. */
    public List<Path> removeStaleLocks() throws IOException {
        PackCompactor.removeTempFiles(repo);
        List<Path> removed = new ArrayList<>();
        Path gitDir = repo.getDirectory().toPath();
        List<Path> candidates = new ArrayList<>();
        candidates.add(gitDir.resolve("index.lock"));
        candidates.add(gitDir.resolve("HEAD.lock"));
        candidates.add(gitDir.resolve("packed-refs.lock"));
        Path refs = gitDir.resolve("refs");
        if (Files.isDirectory(refs)) {
            try (Stream<Path> s = Files.walk(refs)) {
                s.filter(p -> p.getFileName().toString().endsWith(".lock")).forEach(candidates::add);
            }
        }
        for (Path p : candidates) {
            if (Files.deleteIfExists(p)) {
                removed.add(p);
            }
        }
        return removed;
    }

    @Override
    public void close() {
        BatchPackInserter spare = spareInserter.getAndSet(null);
        if (spare != null) {
            spare.close();
        }
        filesAhead.close();
        if (!sharedRepo) {
            repo.close();
        }
    }
}
