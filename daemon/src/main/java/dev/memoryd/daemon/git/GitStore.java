package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.errors.LockFailedException;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * The memory repository as seen by the writer: low-level commits (inserter + incremental tree +
 * ref compare-and-swap) on one branch, reads at any commit, and the index kept in step so plain
 * {@code git status} stays clean after daemon writes.
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
  private ObjectId head;
  /** A store made by {@link #onBranch} shares its repository and does not close it. */
  private final boolean sharedRepo;

  private GitStore(Repository repo, String branch) throws IOException {
    this(repo, branch, false);
  }

  private GitStore(Repository repo, String branch, boolean sharedRepo) throws IOException {
    this.repo = repo;
    this.sharedRepo = sharedRepo;
    this.branchRef = Constants.R_HEADS + branch;
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
    try (Git git = Git.init().setDirectory(root.toFile()).setInitialBranch(branch).call()) {
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
    return new GitStore(r, branch);
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
      throw new IllegalStateException("git config " + REPLICA_KEY + " = '" + r + "' is not a replica id (1-32 of a-z,"
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
    return new GitStore(repo, branch, true);
  }

  /** The branch this store commits to (without {@code refs/heads/}). */
  public String branch() {
    return branchRef.substring(Constants.R_HEADS.length());
  }

  /** Every local branch and its head, sorted by name. */
  public java.util.SortedMap<String, ObjectId> branches() throws IOException {
    java.util.SortedMap<String, ObjectId> out = new java.util.TreeMap<>();
    for (org.eclipse.jgit.lib.Ref r : repo.getRefDatabase().getRefsByPrefix(Constants.R_HEADS)) {
      if (r.getObjectId() != null) {
        out.put(r.getName().substring(Constants.R_HEADS.length()), r.getObjectId());
      }
    }
    return out;
  }

  /** The head of local branch {@code name}, read from the ref database now. */
  public Optional<ObjectId> branchHead(String name) throws IOException {
    org.eclipse.jgit.lib.Ref r = repo.getRefDatabase().exactRef(Constants.R_HEADS + name);
    return r == null ? Optional.empty() : Optional.ofNullable(r.getObjectId());
  }

  /**
   * Moves ref {@code from} (a full ref name) to {@code to}: {@code to} is created at the value
   * {@code from} holds (which must be {@code expected}), then {@code from} is deleted. Used to
   * retire a deleted branch's ref where {@code git branch} does not list it but {@code git gc}
   * keeps its history.
   */
  public void retireRef(String from, String to, ObjectId expected) throws IOException {
    RefUpdate create = repo.updateRef(to);
    create.setNewObjectId(expected);
    create.setForceUpdate(true);
    RefUpdate.Result cr = create.update();
    if (cr != RefUpdate.Result.NEW && cr != RefUpdate.Result.FORCED && cr != RefUpdate.Result.NO_CHANGE) {
      throw new IOException("cannot create " + to + ": " + cr);
    }
    RefUpdate del = repo.updateRef(from);
    del.setExpectedOldObjectId(expected);
    del.setForceUpdate(true);
    RefUpdate.Result dr = del.delete();
    if (dr != RefUpdate.Result.FORCED && dr != RefUpdate.Result.NO_CHANGE) {
      throw new IOException("cannot delete " + from + ": " + dr);
    }
  }

  /** The best common ancestor of two commits (JGit's merge-base), if they share history. */
  public Optional<ObjectId> mergeBase(ObjectId a, ObjectId b) throws IOException {
    try (RevWalk rw = new RevWalk(repo)) {
      rw.setRevFilter(org.eclipse.jgit.revwalk.filter.RevFilter.MERGE_BASE);
      rw.markStart(rw.parseCommit(a));
      rw.markStart(rw.parseCommit(b));
      RevCommit base = rw.next();
      return Optional.ofNullable(base == null ? null : base.copy());
    }
  }

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

  private void seedTree(ObjectId commit) throws IOException {
    tree.clear();
    try (RevWalk rw = new RevWalk(repo); TreeWalk tw = new TreeWalk(repo)) {
      RevCommit c = rw.parseCommit(commit);
      tw.addTree(c.getTree());
      tw.setRecursive(true);
      while (tw.next()) {
        tree.put(tw.getPathString(), tw.getObjectId(0), tw.getFileMode(0));
      }
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
    Path refFile = repo.getDirectory().toPath().resolve(branchRef);
    if (Files.exists(refFile)) {
      String v = Files.readString(refFile, java.nio.charset.StandardCharsets.US_ASCII).strip();
      if (ObjectId.isId(v)) {
        return ObjectId.fromString(v);
      }
    }
    org.eclipse.jgit.lib.Ref r = repo.getRefDatabase().exactRef(branchRef);
    return r == null ? null : r.getObjectId();
  }

  /** Whether {@code ancestor} is {@code commit} or reachable from it; a null ancestor is. */
  public boolean isAncestor(ObjectId ancestor, ObjectId commit) throws IOException {
    if (ancestor == null) {
      return true;
    }
    try (RevWalk rw = new RevWalk(repo)) {
      return rw.isMergedInto(rw.parseCommit(ancestor), rw.parseCommit(commit));
    }
  }

  /** Paths whose blob differs between two commits (null: the empty tree), filtered. */
  public List<String> changedPaths(ObjectId from, ObjectId to, java.util.function.Predicate<String> keep)
      throws IOException {
    List<String> out = new ArrayList<>();
    try (RevWalk rw = new RevWalk(repo); TreeWalk tw = new TreeWalk(repo)) {
      if (from == null) {
        tw.addTree(new org.eclipse.jgit.treewalk.EmptyTreeIterator());
      } else {
        tw.addTree(rw.parseCommit(from).getTree());
      }
      tw.addTree(rw.parseCommit(to).getTree());
      tw.setRecursive(true);
      tw.setFilter(org.eclipse.jgit.treewalk.filter.TreeFilter.ANY_DIFF);
      while (tw.next()) {
        if (keep.test(tw.getPathString())) {
          out.add(tw.getPathString());
        }
      }
    }
    return out;
  }

  /**
   * Creates branch {@code ref} (which must not exist) at a new commit: {@code parent}'s tree
   * with {@code files} replaced. For proposals; the checked-out branch and the working tree are
   * not touched.
   */
  public ObjectId commitOnNewBranch(String ref, ObjectId parent, Map<String, byte[]> files, PersonIdent author,
      PersonIdent committer, String message) throws IOException {
    try (ObjectInserter ins = repo.newObjectInserter(); RevWalk rw = new RevWalk(repo);
        ObjectReader reader = repo.newObjectReader()) {
      DirCache dc = DirCache.newInCore();
      org.eclipse.jgit.dircache.DirCacheBuilder b = dc.builder();
      if (parent != null) {
        b.addTree(new byte[0], 0, reader, rw.parseCommit(parent).getTree());
      }
      b.finish();
      DirCacheEditor ed = dc.editor();
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        ObjectId blob = ins.insert(Constants.OBJ_BLOB, f.getValue());
        ed.add(new DirCacheEditor.PathEdit(f.getKey()) {
          @Override
          public void apply(DirCacheEntry ent) {
            if (ent.getFileMode() != FileMode.EXECUTABLE_FILE) {
              ent.setFileMode(FileMode.REGULAR_FILE);
            }
            ent.setObjectId(blob);
          }
        });
      }
      ed.finish();
      CommitBuilder cb = new CommitBuilder();
      cb.setTreeId(dc.writeTree(ins));
      if (parent != null) {
        cb.setParentId(parent);
      }
      cb.setAuthor(author);
      cb.setCommitter(committer);
      cb.setMessage(message);
      ObjectId c = ins.insert(cb);
      ins.flush();
      RefUpdate ru = repo.updateRef(Constants.R_HEADS + ref);
      ru.setNewObjectId(c);
      ru.setExpectedOldObjectId(ObjectId.zeroId());
      RefUpdate.Result r = ru.update();
      if (r != RefUpdate.Result.NEW) {
        throw new IOException("cannot create branch " + ref + ": " + r);
      }
      return c;
    }
  }

  /** A commit's id, author and subject. */
  public record CommitInfo(ObjectId id, PersonIdent author, String subject) {}

  /** Commits reachable from {@code to} but not from {@code from}, newest first, at most {@code max}. */
  public List<CommitInfo> commitsBetween(ObjectId from, ObjectId to, int max) throws IOException {
    List<CommitInfo> out = new ArrayList<>();
    try (RevWalk rw = new RevWalk(repo)) {
      rw.markStart(rw.parseCommit(to));
      if (from != null) {
        rw.markUninteresting(rw.parseCommit(from));
      }
      for (RevCommit c : rw) {
        out.add(new CommitInfo(c.copy(), c.getAuthorIdent(), c.getShortMessage()));
        if (out.size() >= max) {
          break;
        }
      }
    }
    return out;
  }

  /**
   * Commits of {@code tip} that {@code base} lacks, at most {@code max}, when {@code tip} changes
   * a file outside {@code ledger/} since their merge base (or they share no history); empty when
   * {@code tip} is {@code base}, an ancestor of it, or adds only ledger lines (other replicas'
   * fork and chain commits), which is what lets a branch deleted on one root be deleted where it
   * was merely synced.
   */
  public List<ObjectId> workBeyond(ObjectId base, ObjectId tip, int max) throws IOException {
    if (isAncestor(tip, base)) {
      return List.of();
    }
    Optional<ObjectId> mb = mergeBase(base, tip);
    if (mb.isPresent() && changedPaths(mb.get(), tip, p -> !p.startsWith("ledger/")).isEmpty()) {
      return List.of();
    }
    List<ObjectId> out = new ArrayList<>();
    for (CommitInfo c : commitsBetween(base, tip, max)) {
      out.add(c.id());
    }
    return out;
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
    return listFiles(commit, null);
  }

  /** Every file path in {@code commit}'s tree under directory {@code dir} (all when null). */
  public List<String> listFiles(ObjectId commit, String dir) throws IOException {
    List<String> out = new ArrayList<>();
    if (commit == null) {
      return out;
    }
    try (RevWalk rw = new RevWalk(repo); TreeWalk tw = new TreeWalk(repo)) {
      tw.addTree(rw.parseCommit(commit).getTree());
      tw.setRecursive(true);
      if (dir != null) {
        tw.setFilter(org.eclipse.jgit.treewalk.filter.PathFilter.create(dir));
      }
      while (tw.next()) {
        out.add(tw.getPathString());
      }
    }
    return out;
  }

  /** A file's bytes at a commit, or empty if it does not exist there. */
  public Optional<byte[]> read(ObjectId commit, String path) throws IOException {
    if (commit == null) {
      return Optional.empty();
    }
    try (RevWalk rw = new RevWalk(repo); ObjectReader reader = repo.newObjectReader()) {
      RevCommit c = rw.parseCommit(commit);
      try (TreeWalk tw = TreeWalk.forPath(reader, path, c.getTree())) {
        if (tw == null || tw.getFileMode(0) == FileMode.TREE) {
          return Optional.empty();
        }
        return Optional.of(reader.open(tw.getObjectId(0)).getBytes());
      }
    }
  }

  /** Resolves a revision string (commit id, branch, {@code HEAD~2}) or returns empty. */
  public Optional<ObjectId> resolve(String rev) {
    try {
      ObjectId id = repo.resolve(rev + "^{commit}");
      return Optional.ofNullable(id);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The trailers ({@code Key: value} lines of the last paragraph) of a commit, in order. */
  public List<Map.Entry<String, String>> trailers(ObjectId commit) throws IOException {
    try (RevWalk rw = new RevWalk(repo)) {
      return parseTrailers(rw.parseCommit(commit).getFullMessage());
    }
  }

  public static List<Map.Entry<String, String>> parseTrailers(String message) {
    String[] paras = message.strip().split("\n\n");
    List<Map.Entry<String, String>> out = new ArrayList<>();
    for (String line : paras[paras.length - 1].split("\n")) {
      int c = line.indexOf(": ");
      if (c > 0 && line.substring(0, c).matches("[A-Za-z][A-Za-z0-9-]*")) {
        out.add(Map.entry(line.substring(0, c), line.substring(c + 2)));
      }
    }
    return out;
  }

  /**
   * One pack per batch instead of one file per object: a declaration makes about a dozen
   * objects (blobs, the trees on their paths, the commit), and writing each as a loose file
   * dominated the cost of a write. {@link PackCompactor} keeps the pack count down.
   */
  private BatchPackInserter packInserter() {
    BatchPackInserter s = spareInserter.getAndSet(null);
    return s != null ? s : new BatchPackInserter(
        (org.eclipse.jgit.internal.storage.file.ObjectDirectory) repo.getObjectDatabase(), 1);
  }

  /**
   * The inserter of the last closed batch, kept for the next: a new one per batch (its zlib
   * stream, digest and buffers) was a visible part of a one-declaration batch's cost.
   */
  private final java.util.concurrent.atomic.AtomicReference<BatchPackInserter> spareInserter =
      new java.util.concurrent.atomic.AtomicReference<>();

  /** Rolls small packs into bigger ones when there are many; returns packs combined. */
  public int compactPacks() throws IOException {
    // A git gc that is running (it holds gc.pid, as git gc --auto checks) enumerates the packs a
    // roll-up would delete under it, and fails with "unable to add recent objects": wait for it.
    Path gcPid = repo.getDirectory().toPath().resolve("gc.pid");
    if (Files.exists(gcPid) && Files.getLastModifiedTime(gcPid).toMillis() > System.currentTimeMillis() - 12 * 3_600_000L) {
      return 0;
    }
    // Stores of several branches share the repository: one roll-up at a time.
    synchronized (repo) {
      return PackCompactor.maybeCompact(repo);
    }
  }

  /** Starts a group of chained commits that share one object flush and one ref update. */
  public Batch batch() {
    return new Batch();
  }

  /**
   * A group of commits, each on top of the previous; {@link #publish()} flushes objects and moves
   * the branch with a compare-and-swap on the head it started from.
   */
  public final class Batch implements AutoCloseable {
    private final BatchPackInserter ins = packInserter();
    private final ObjectId base = head;
    private ObjectId tip = head;
    private final Map<String, ObjectId> written = new LinkedHashMap<>();
    private final java.util.Set<String> removed = new java.util.LinkedHashSet<>();
    private boolean moved;
    /** The bytes of each path's last blob in this batch: the base of its next version's delta. */
    private final Map<String, byte[]> lastBytes = new HashMap<>();

    private Batch() {}

    /** Commits on top of the batch's tip; a null value removes that path from the tree. */
    public ObjectId commit(Map<String, byte[]> files, PersonIdent author, PersonIdent committer,
        String message) throws IOException {
      return commit(files, author, committer, message, null);
    }

    /** As {@link #commit}, with a second parent (a merge) when {@code mergeParent} is not null. */
    public ObjectId commit(Map<String, byte[]> files, PersonIdent author, PersonIdent committer,
        String message, ObjectId mergeParent) throws IOException {
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        if (f.getValue() == null) {
          tree.remove(f.getKey());
          written.remove(f.getKey());
          lastBytes.remove(f.getKey());
          removed.add(f.getKey());
          continue;
        }
        removed.remove(f.getKey());
        byte[] data = f.getValue();
        ObjectId prev = written.get(f.getKey());
        ObjectId blob = prev == null ? ins.insert(Constants.OBJ_BLOB, data)
            : ins.insertBlobAfter(prev, lastBytes.get(f.getKey()), data);
        tree.put(f.getKey(), blob);
        written.put(f.getKey(), blob);
        lastBytes.put(f.getKey(), data);
      }
      CommitBuilder cb = new CommitBuilder();
      cb.setTreeId(tree.write(ins));
      if (tip != null && mergeParent != null) {
        cb.setParentIds(tip, mergeParent);
      } else if (tip != null) {
        cb.setParentId(tip);
      }
      cb.setAuthor(author);
      cb.setCommitter(committer);
      cb.setMessage(message);
      tip = ins.insert(cb);
      return tip;
    }

    public ObjectId tip() {
      return tip;
    }

    /** Blob ids written in this batch, by path (last write wins). */
    public Map<String, ObjectId> written() {
      return written;
    }

    /** Paths this batch removed from the tree (and did not write again after). */
    public java.util.Set<String> removed() {
      return removed;
    }

    public void publish() throws IOException {
      flush();
      moveRef();
    }

    /** Writes the batch's objects (one pack). */
    public void flush() throws IOException {
      ins.flush();
    }

    /**
     * Moves the branch to the tip, compare-and-swap on the head the batch started from. Done as
     * git itself does it (create {@code <ref>.lock} exclusively, check the current value, write,
     * rename), which costs half of JGit's RefUpdate here; the batch is a fast-forward by
     * construction, and no reflog is written (the ledger and the commit chain are the history).
     */
    public void moveRef() throws IOException {
      if (tip == null || tip.equals(base)) {
        return;
      }
      swapRef(base, tip);
      moved = true;
    }

    /** Readies {@link #moveRef} (see {@link GitStore#prepareRef}); call once the batch's commits are flushed. */
    public void prepareMove() throws IOException {
      if (tip != null && !tip.equals(base)) {
        prepareRef(tip);
      }
    }

    @Override
    public void close() {
      if (!moved && tip != null && !tip.equals(base)) {
        // A batch that never published leaves the tree image as its commits made it.
        try {
          if (head != null) {
            seedTree(head);
          } else {
            tree.clear();
          }
        } catch (IOException e) {
          throw new java.io.UncheckedIOException("cannot re-read the tree of " + branchRef, e);
        }
      }
      ins.reset(); // drops what a failed batch never flushed
      if (!spareInserter.compareAndSet(null, ins)) {
        ins.close();
      }
    }
  }

  /**
   * Moves the branch from {@code expected} to {@code target}: compare-and-swap under the ref lock
   * (the one {@link #holdRef} holds, else taken here), written and renamed as git does; no
   * reflog. On a mismatch the store's head and tree follow the branch and an IOException says so.
   */
  private void swapRef(ObjectId expected, ObjectId target) throws IOException {
    Path refFile = repo.getDirectory().toPath().resolve(branchRef);
    Path lock = refFile.resolveSibling(refFile.getFileName() + ".lock");
    java.nio.channels.FileChannel held = heldRefLock;
    boolean written = held != null && target.equals(preparedTarget);
    heldRefLock = null; // consumed here, whatever happens
    preparedTarget = null;
    if (held == null) {
      Files.createDirectories(refFile.getParent());
    }
    try (java.nio.channels.FileChannel ch = held != null ? held : java.nio.channels.FileChannel.open(lock,
        java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
      ObjectId current = refNow();
      if (!java.util.Objects.equals(current, expected)) {
        Files.deleteIfExists(lock);
        head = current;
        if (current != null) {
          seedTree(current);
        }
        throw new IOException("branch " + branchRef + " moved under the writer (now "
            + (current == null ? "absent" : current.name()) + ")");
      }
      if (!written) {
        writeRefLock(ch, target);
      }
    } catch (java.nio.file.FileAlreadyExistsException e) {
      throw new IOException("cannot lock " + branchRef + ": " + lock + " exists (another git process?)", e);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(lock);
      throw e;
    }
    try {
      Files.move(lock, refFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      try {
        leftLock = Files.readAttributes(lock, java.nio.file.attribute.BasicFileAttributes.class,
            java.nio.file.LinkOption.NOFOLLOW_LINKS).fileKey();
        Files.delete(lock);
        leftLock = null;
      } catch (IOException again) {
        e.addSuppressed(again); // removed by the next holdRef
      }
      throw e;
    }
    head = target;
  }

  /**
   * Moves the branch back to {@code target} from {@code expected} (compare-and-swap), the store's
   * head and tree with it: for undoing a move no one asked for ({@link StaleReset}).
   */
  public void restoreRef(ObjectId expected, ObjectId target) throws IOException {
    swapRef(expected, target);
    seedTree(target);
  }

  private java.nio.channels.FileChannel heldRefLock;
  /** What {@link #prepareRef} wrote into {@link #heldRefLock}; null when nothing was. */
  private ObjectId preparedTarget;

  private static void writeRefLock(java.nio.channels.FileChannel ch, ObjectId target) throws IOException {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(
        (target.name() + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    long pos = 0;
    while (b.hasRemaining()) {
      pos += ch.write(b, pos);
    }
    ch.truncate(pos);
  }

  /**
   * Writes {@code target} into the ref lock {@link #holdRef} holds and forces it, ahead of the
   * move: renaming a file whose bytes are on disk already costs the file system no writeback
   * (ext4 flushes a file renamed over another), so the rename under git's index lock is quick.
   * Nothing changes for git until the move; a no-op without a held lock.
   */
  public void prepareRef(ObjectId target) throws IOException {
    if (heldRefLock == null || target == null) {
      return;
    }
    writeRefLock(heldRefLock, target);
    heldRefLock.force(false);
    preparedTarget = target;
  }

  /**
   * Takes the branch's {@code <ref>.lock} the way git does and keeps it until the next
   * {@link Batch#moveRef} (which writes and renames it) or {@link #releaseRef}: while the writer
   * holds it, a {@code git commit} on the branch fails to lock the ref instead of moving it under
   * a batch whose ledger lines are already durable. Waits up to {@code waitMs} for a lock another
   * process holds; false if it is still there.
   */
  public boolean holdRef(long waitMs) throws IOException {
    if (heldRefLock != null) {
      return true;
    }
    Path refFile = repo.getDirectory().toPath().resolve(branchRef);
    Path lock = refFile.resolveSibling(refFile.getFileName() + ".lock");
    Files.createDirectories(refFile.getParent());
    long deadline = System.nanoTime() + waitMs * 1_000_000;
    while (true) {
      try {
        removeLeftLock(lock);
        preparedTarget = null;
        heldRefLock = java.nio.channels.FileChannel.open(lock, java.nio.file.StandardOpenOption.CREATE_NEW,
            java.nio.file.StandardOpenOption.WRITE);
        return true;
      } catch (java.nio.file.FileAlreadyExistsException e) {
        if (System.nanoTime() > deadline) {
          return false;
        }
        try {
          Thread.sleep(5);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted while waiting for " + lock);
        }
      }
    }
  }

  /** Gives back a lock {@link #holdRef} took and no ref update used. */
  public void releaseRef() throws IOException {
    java.nio.channels.FileChannel held = heldRefLock;
    if (held != null) {
      heldRefLock = null;
      preparedTarget = null;
      Path lock = refLockFile();
      Object key = Files.readAttributes(lock, java.nio.file.attribute.BasicFileAttributes.class,
          java.nio.file.LinkOption.NOFOLLOW_LINKS).fileKey();
      held.close();
      try {
        Files.deleteIfExists(lock);
      } catch (IOException e) {
        // Say, the directory turned read-only or immutable meanwhile: the lock is ours, so it is
        // removed at the next try instead of being taken for another git command's.
        leftLock = key;
        throw e;
      }
    }
  }

  /** The file key of a ref lock this store took and could not remove; removed by the next {@link #holdRef}. */
  private Object leftLock;

  /** Removes the ref lock this store left behind, if it is still the same file. */
  private void removeLeftLock(Path lock) throws IOException {
    Object key = leftLock;
    if (key == null) {
      return;
    }
    try {
      Object now = Files.readAttributes(lock, java.nio.file.attribute.BasicFileAttributes.class,
          java.nio.file.LinkOption.NOFOLLOW_LINKS).fileKey();
      if (key.equals(now)) {
        Files.delete(lock);
      }
      leftLock = null;
    } catch (java.nio.file.NoSuchFileException e) {
      leftLock = null;
    }
  }

  /** The lock file of the branch ref (for messages). */
  public Path refLockFile() {
    Path refFile = repo.getDirectory().toPath().resolve(branchRef);
    return refFile.resolveSibling(refFile.getFileName() + ".lock");
  }

  /**
   * Records the given working-tree files in the index as clean at these blob ids, so that a
   * human's {@code git status} shows no spurious changes. Returns false if the index is locked
   * by someone else (retry later).
   */
  public boolean updateIndex(Path workTree, Map<String, ObjectId> blobs) throws IOException {
    return updateIndex(workTree, blobs, java.util.Set.of());
  }

  /** As {@link #updateIndex(Path, Map)}, also removing {@code removed} from the index. */
  public boolean updateIndex(Path workTree, Map<String, ObjectId> blobs, java.util.Set<String> removed)
      throws IOException {
    if (blobs.isEmpty() && removed.isEmpty()) {
      return true;
    }
    Optional<WorkTreeIndex.Held> held = new WorkTreeIndex(repo, workTree).lock(0);
    if (held.isEmpty()) {
      return false;
    }
    try (WorkTreeIndex.Held h = held.get()) {
      h.record(blobs, Map.of(), removed, this::modeOf);
    }
    return true;
  }

  /**
   * After a crash the index may lag the branch: records every head-tree file whose working copy
   * has exactly the head's bytes as clean. Files that differ (a human's edits) are left alone.
   */
  public boolean syncIndexToHead(Path workTree) throws IOException {
    if (head == null) {
      return true;
    }
    Map<String, ObjectId> clean = new LinkedHashMap<>();
    try (RevWalk rw = new RevWalk(repo); TreeWalk tw = new TreeWalk(repo);
        ObjectInserter.Formatter fmt = new ObjectInserter.Formatter()) {
      tw.addTree(rw.parseCommit(head).getTree());
      tw.setRecursive(true);
      while (tw.next()) {
        Path f = workTree.resolve(tw.getPathString());
        if (Files.isRegularFile(f) && !Files.isSymbolicLink(f)
            && fmt.idFor(Constants.OBJ_BLOB, Files.readAllBytes(f)).equals(tw.getObjectId(0))) {
          clean.put(tw.getPathString(), tw.getObjectId(0));
        }
      }
    }
    return updateIndex(workTree, clean);
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
    if (!sharedRepo) {
      repo.close();
    }
  }

}
