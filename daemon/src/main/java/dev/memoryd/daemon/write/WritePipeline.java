package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.CommitFormat;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.daemon.layout.RootLayout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.git.CommitBatch;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.grammar.CreateEntity;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.EventDraft;
import dev.memoryd.ledger.EventId;
import dev.memoryd.ledger.EvidenceToken;
import dev.memoryd.ledger.IdGenerator;

/**
 * The single writer of one branch. Declarations queue up; the writer takes every declaration
 * waiting (up to {@code maxBatch}) and validates each against the state left by the ones before
 * it. The accepted ones then share one ledger fsync, one object flush and one ref update, while
 * each still becomes its own commit and its own run of ledger lines (group commit). A future
 * completes only after its declaration is durable in the ledger and published on the branch.
 *
 * <p>Ordering: declarations are applied in submission order. Durability: the ledger is the
 * write-ahead log: it is fsynced before files or refs change, and {@link #recover()} rolls a
 * ledger tail that never reached the branch forward into files and commits.
 */
public final class WritePipeline implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

  private final GrammarFiles grammars;
  private final FileStore files;
  private final GitStore git;
  private final Chain chain;
  private final SectionHasher hasher;
  private final IdGenerator ids;
  private final Clock clock;
  private final BranchName branch;
  private final int maxBatch;
  private final PhaseStats stats = new PhaseStats();
  /** Where a batch's ledger lines are forced before git commands are kept out; null: the segment itself. */
  private dev.memoryd.ledger.Journal journal;
  private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final Map<String, WriteOutcome> idempotent = new ConcurrentHashMap<>();
  private final Map<String, ObjectId> indexBacklog = new LinkedHashMap<>();
  private final Thread thread;
  /** The working tree's index, kept in step with every batch (null for a branch not checked out). */
  private final dev.memoryd.daemon.git.WorkTreeIndex index;
  private final WriterHealth health;
  private volatile boolean running = true;
  private volatile boolean accepting = true;
  private volatile Throwable broken;

  /** Where the writer reads current file text and writes new text (the working tree). */
  public interface FileStore {
    Optional<String> read(RepoPath p) throws IOException;

    void writeAll(Map<String, byte[]> files) throws IOException;

    /** Writes and fsyncs temp files; the returned action renames them into place. */
    IoAction stage(Map<String, byte[]> files) throws IOException;

    /**
     * As {@link #stage}, but a file whose content on disk is no longer {@code expected} (by path;
     * empty: absent) when its turn to be renamed comes is left alone: a human saved it meanwhile,
     * and their save wins (it is captured next). {@code skipped} receives such paths.
     */
    default IoAction stage(Map<String, byte[]> files, Map<String, Optional<String>> expected,
        java.util.function.Consumer<String> skipped) throws IOException {
      return stage(files);
    }

    java.nio.file.Path root();

    /**
     * Whether this store is the repository's working tree (the checked-out branch). A store that
     * is not (a branch written in Git only) makes the writer leave the index alone.
     */
    default boolean workTree() {
      return true;
    }
  }

  private record Pending(WriteRequest req, CompletableFuture<WriteOutcome> future, Runnable task,
      CompletableFuture<?> taskDone) {
    Pending(WriteRequest req, CompletableFuture<WriteOutcome> future) {
      this(req, future, null, null);
    }
  }

  /** An I/O step that may fail. */
  public interface IoAction {
    void run() throws IOException;

    /** Gives up what {@link #run} would have done (e.g. removes staged temp files). */
    default void abort() throws IOException {}

    /** Makes what {@link #run} did durable where run left that for later (directory fsyncs). */
    default void settle() throws IOException {}
  }

  /** Poison pill: interrupting the writer could close its file channels mid-write. */
  private static final Pending STOP = new Pending(null, null, null, null);
  private static final long INDEX_DELAY_MS = 50;
  private static final int COMPACT_EVERY = Integer.getInteger("memoryd.compactEvery", 16);
  private int batchesSinceCompaction;
  private Future<?> compaction;
  private final ExecutorService stager = Executors.newSingleThreadExecutor(r -> daemon(r, "memoryd-stage"));
  private final ExecutorService compactor = Executors.newSingleThreadExecutor(r -> daemon(r, "memoryd-compact"));

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private record Accepted(Pending p, List<Mutation.EventSpec> specs, Map<RepoPath, String> contents,
      List<EventDraft> drafts, PersonIdent author, String proposal) {}

  /** A mutation whose commit merges another commit in (a proposal's, when it is accepted). */
  public interface MergeParent {
    ObjectId mergeParent();
  }

  /** Event op of a declaration that became a proposal instead of changing the branch. */
  public static final String OP_PROPOSAL = "proposal_created";

  /** A mutation that must act on the chain right after its own lines are appended. */
  public interface ChainHook {
    void afterAppend(Chain chain);
  }

  private final Replayers replayers;
  private final LedgerReplay replay;
  private volatile DriftView drift = DriftView.NONE;
  /** Recorded text (what the ledger replays to) of memory files, by path; misses read {@link #captured}. */
  private final Map<RepoPath, Optional<String>> recorded = new HashMap<>();
  /** The commit whose memory files the recorded texts reflect; null before the first. */
  private ObjectId captured;
  private final List<java.util.function.Consumer<List<Event>>> listeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /** Tells the writer which files wait in the drift queue (set before {@link #start()}). */
  public void setDriftView(DriftView v) {
    this.drift = v;
  }

  /** Registers how to redo events whose op is {@code op} (extensions; grammar ops are built in). */
  public void registerReplayer(String op, Replayer r) {
    replayers.register(op, r);
  }

  /**
   * Called on the writer thread with every batch's events, in ledger order, once they are
   * published; also with the events a recovery rolled forward. Must be quick and not write.
   */
  public void addListener(java.util.function.Consumer<List<Event>> l) {
    listeners.add(l);
  }

  public WritePipeline(GrammarFiles grammars, FileStore files, GitStore git, Chain chain,
      SectionHasher hasher, IdGenerator ids, Clock clock, BranchName branch, int maxBatch) {
    this.grammars = grammars;
    this.files = files;
    this.git = git;
    this.chain = chain;
    this.hasher = hasher;
    this.ids = ids;
    this.clock = clock;
    this.branch = branch;
    this.maxBatch = maxBatch;
    this.index = files.workTree() ? new dev.memoryd.daemon.git.WorkTreeIndex(git.repository(), files.root()) : null;
    this.health = new WriterHealth(clock);
    this.thread = new Thread(this::loop, "memoryd-writer-" + branch.value());
    this.thread.setDaemon(true);
    this.replayers = new Replayers(grammars, hasher);
    for (String op : List.of(HumanCapture.OP_EDIT, HumanCapture.OP_DRIFT, HumanCapture.OP_RESOLVED)) {
      replayers.register(op, HumanCapture::replay);
    }
    // A proposal changes no file of this branch; its acceptance is recorded as grammar events.
    replayers.register(OP_PROPOSAL, evs -> (src, now) -> new Mutation.Done(Map.of(), List.of(), true));
    this.replay = new LedgerReplay(chain, replayers);
  }

  /**
   * Forces each batch's ledger lines to {@code j} before the index lock is taken, and the segment
   * only after the lock is let go (before any reply): git commands are kept out for no ledger
   * fsync. Call before {@link #start}; the caller has applied what {@code j} held.
   */
  public void useJournal(dev.memoryd.ledger.Journal j) {
    this.journal = j;
  }

  /** A mutation applying grammar ops as an agent's write would (for proposals being accepted). */
  public Mutation grammarOps(List<Op> ops) {
    return new GrammarMutation(grammars, withSliceIds(ops), hasher);
  }

  /** The grammar in force on this branch (its recorded files'): on the writer thread only. */
  private Grammar grammarInForce() {
    return grammars.inForce(this::recordedText);
  }

  /** Where this writer's grammar comes from. */
  public GrammarFiles grammars() {
    return grammars;
  }

  /** The branch this writer writes. */
  public BranchName branch() {
    return branch;
  }

  /** The chain this writer appends to: the branch's, or this replica's chain of it. */
  public BranchName chainName() {
    return chain.branch();
  }

  /** The chain-trailer value of this writer's commits: null when the chain is the branch's own. */
  private String chainTrailer() {
    return chain.branch().equals(branch) ? null : chain.branch().value();
  }

  /** The branch's Git store (commits and reads; its writes belong to the writer thread). */
  public GitStore git() {
    return git;
  }

  /** The content hasher of section hashes. */
  public SectionHasher hasher() {
    return hasher;
  }

  public PhaseStats stats() {
    return stats;
  }

  /** The writer's state and its last failure (for {@code ping}). */
  public WriterHealth.Snapshot health() {
    WriterHealth.Snapshot h = health.snapshot();
    Throwable b = broken;
    return b == null ? h : h.stopped(WriterHealth.describe(b));
  }

  /** Loads idempotency keys from the chain; rolls an unpublished ledger tail forward. */
  public void recover() throws IOException {
    long published = publishedSeq();
    long durable = chain.head().seq();
    if (durable < published) {
      throw new IllegalStateException("the ledger of " + branch.value() + " ends at line " + durable
          + " but the branch head records line " + published
          + ": the ledger lost lines; run 'memoryd ledger verify'");
    }
    if (durable > published) {
      // Lines a merge brought in (a plain clone of a synced remote) are published, not lost.
      published = HistoryHead.seq(git, git.head(), chain.branch(), published, durable);
    }
    if (durable > published) {
      rollForward(published); // first: it may drop a cut-off declaration's lines
    }
    Iterator<Event> it = chain.read(1);
    while (it.hasNext()) {
      Event e = it.next();
      if (e.idempotencyKey() != null) {
        idempotent.computeIfAbsent(e.idempotencyKey(), k -> new WriteOutcome.Committed(
            null, new ArrayList<>(), true));
        WriteOutcome.Committed c = (WriteOutcome.Committed) idempotent.get(e.idempotencyKey());
        c.events().add(ref(e));
      }
    }
    if (files.workTree()) {
      git.syncIndexToHead(files.root());
    }
    captured = LedgerTrailers.recordedCommit(git, chain.branch()).orElse(null);
    if (chain.head().seq() == 1) {
      // A replica's chain that holds only its fork: what it inherited is recorded up to the linked
      // commit, so commits made with git after that one are still to be captured here.
      Event fork = chain.read(1).next();
      String upstream = fork.payload() == null ? "" : fork.payload().path("fork").path("recorded_commit").asText("");
      if (fork.op().equals("branch_fork") && ObjectId.isId(upstream) && git.isAncestor(ObjectId.fromString(upstream), git.head())) {
        captured = ObjectId.fromString(upstream);
      }
    }
  }

  private static WriteOutcome.EventRef ref(Event e) {
    return new WriteOutcome.EventRef(e.eventId(),
        EvidenceToken.of(Instant.parse(e.ts()), new EventId(e.eventId())).value(), e.afterHash(),
        e.filePath(), e.sectionAnchor());
  }

  /**
   * Commits files under {@code ledger/} that other replicas' chains hold (brought by a sync), with
   * no event of this branch's chain, as a merge of {@code mergeParent} when it is not null; writes
   * them to the working tree first. Call on the writer thread ({@link #exclusive}). Returns empty,
   * changing nothing, when commits made with git since memoryd's last one are still to be
   * captured (capture first, then call again).
   */
  public Optional<ObjectId> commitForeign(Map<String, byte[]> ledgerFiles, String message, ObjectId mergeParent)
      throws IOException {
    for (String p : ledgerFiles.keySet()) {
      if (!p.startsWith("ledger/")) {
        throw new IllegalArgumentException("not a ledger file: " + p);
      }
    }
    if (!git.holdRef(lockWaitMs())) {
      throw new IOException("the branch is locked by another git command (" + git.refLockFile() + ")");
    }
    try {
      if (!java.util.Objects.equals(git.refNow(), captured)) {
        return Optional.empty();
      }
      files.writeAll(ledgerFiles);
      Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
      try (CommitBatch gb = git.batch()) {
        gb.commit(ledgerFiles, CommitFormat.committer(now), CommitFormat.committer(now), message, mergeParent);
        gb.publish().orThrow();
        if (files.workTree()) {
          indexBacklog.putAll(gb.written());
        }
      }
      captured = git.head();
      return Optional.of(captured);
    } finally {
      git.releaseRef();
    }
  }

  /** The ledger seq the branch head (or its nearest memoryd ancestor) says is published. */
  private long publishedSeq() throws IOException {
    return LedgerTrailers.publishedHeadAt(git, git.head(), chain.branch()).map(dev.memoryd.ledger.Head::seq).orElse(0L);
  }

  private void rollForward(long published) throws IOException {
    RollForward.Result r = new RollForward(chain, git, files, replayers, chainTrailer()).run(published);
    if (r.groups().isEmpty()) {
      return;
    }
    if (files.workTree()) {
      indexBacklog.putAll(r.written());
    }
    for (List<Event> g : r.groups()) {
      notifyListeners(g);
    }
    LOG.info("recovery rolled " + r.groups().size() + " unpublished declaration(s) forward");
  }

  private void notifyListeners(List<Event> events) {
    for (java.util.function.Consumer<List<Event>> l : listeners) {
      try {
        l.accept(events);
      } catch (RuntimeException e) {
        // The events are recorded and published; a listener keeps derived state (search, chunk
        // graph, queues), and its failure must not turn the reply into "not recorded".
        LOG.log(Level.SEVERE, "a listener failed on recorded events " + events.get(0).seq() + ".."
            + events.get(events.size() - 1).seq() + "; its derived state may lag until restart", e);
      }
    }
  }

  public void start() {
    thread.start();
  }

  /**
   * Queues a capture of humans' edits: the given memory files on disk against their recorded
   * texts, plus any commit a human put on the branch. Unchanged files record nothing; the future
   * completes with {@link WriteOutcome.Unchanged} when there was nothing to capture.
   */
  public CompletableFuture<WriteOutcome> capture(java.util.Collection<RepoPath> paths) {
    List<RepoPath> sorted = paths.stream().filter(RootLayout::isMemoryFile).distinct()
        .sorted(java.util.Comparator.comparing(RepoPath::value)).toList();
    Contextual c = ctx -> {
      List<HumanCapture.Item> items = new ArrayList<>();
      for (RepoPath p : sorted) {
        Optional<String> before = ctx.recorded(p);
        Optional<String> now = ctx.disk(p);
        if (!before.equals(now) || ctx.drift().openOn(p).isPresent()) {
          items.add(new HumanCapture.Item(p, before.orElse(null), now.orElse(null)));
        }
      }
      return new HumanCapture(ctx, items, JsonNodeFactory.instance.objectNode().put("source", "work_tree"));
    };
    PersonIdent who = humanIdent(clock.instant());
    return submit(WriteRequest.of(c, "captured a human's edit of " + (sorted.size() == 1
        ? sorted.get(0).value() : sorted.size() + " files"), humanActor(who)));
  }

  /**
   * Queues a capture of every memory file: those on disk and those the branch head records (so
   * a deletion is seen too). For rescans.
   */
  public CompletableFuture<WriteOutcome> captureAll() throws IOException {
    java.util.Set<RepoPath> all = new java.util.HashSet<>(memoryFilesOnDisk(files.root()));
    git.listFiles(git.head()).stream().filter(RootLayout::isMemoryFile).map(RepoPath::of).forEach(all::add);
    return capture(all);
  }

  /** The memory files on disk under {@code root}, in path order; a name memoryd could not hold is left to lint. */
  private static List<RepoPath> memoryFilesOnDisk(java.nio.file.Path root) throws IOException {
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

  /** Queues a declaration; the future completes once it is durable and published, or refused. */
  public CompletableFuture<WriteOutcome> submit(WriteRequest req) {
    CompletableFuture<WriteOutcome> f = new CompletableFuture<>();
    Throwable b = broken;
    if (b != null || !running || !accepting) {
      f.completeExceptionally(new IllegalStateException("the writer has stopped", b));
      return f;
    }
    queue.add(new Pending(req, f));
    return f;
  }

  private void loop() {
    List<Pending> batch = new ArrayList<>();
    while (running) {
      try {
        // The index only serves humans' `git status`: refresh it when writes pause.
        Pending first = indexBacklog.isEmpty() ? queue.take()
            : queue.poll(INDEX_DELAY_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
        if (first == null) {
          long t0 = System.nanoTime();
          if (git.updateIndex(files.root(), indexBacklog)) {
            indexBacklog.clear();
          }
          stats.add(PhaseStats.Phase.INDEX, System.nanoTime() - t0);
          continue;
        }
        if (first == STOP) {
          break;
        }
        if (first.task != null) {
          first.task.run();
          continue;
        }
        batch.add(first);
        drainWrites(batch);
        boolean stop = batch.remove(STOP);
        process(batch);
        if (stop) {
          running = false;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (IOException | RuntimeException e) {
        // Whatever of the batch was begun has been undone (publish rolls back before it throws),
        // so the writer stays up: the next batch is the retry, and heals once the cause is gone.
        health.failed(e);
        WriteOutcome refused = new WriteOutcome.Rejected(-1, new Failure(ErrorReason.UNAVAILABLE,
            "the write could not be made (" + WriterHealth.describe(e) + "); nothing was recorded: retry once the"
                + " cause is gone", Map.of("cause", WriterHealth.describe(e), "recorded", false)));
        for (Pending p : batch) {
          p.future.complete(refused);
        }
      } catch (UnsettledBatch e) {
        health.unsettled(e.getCause());
        WriteOutcome unknown = new WriteOutcome.Rejected(-1, new Failure(ErrorReason.UNAVAILABLE,
            "the write failed (" + WriterHealth.describe(e.getCause()) + ") and could not be undone (" + e.getMessage()
                + "); it may still be recorded: read before you retry (a restart settles it)",
            Map.of("cause", WriterHealth.describe(e.getCause()), "recorded", "unknown")));
        for (Pending p : batch) {
          p.future.complete(unknown);
        }
      } catch (Error e) {
        // The state on disk may be half-applied; stop taking writes. A restart rolls forward.
        LOG.log(Level.SEVERE, "writer failed; refusing further writes until restart", e);
        broken = e;
        running = false;
        for (Pending p : batch) {
          p.future.completeExceptionally(e);
        }
      } finally {
        batch.clear();
      }
    }
    running = false;
    Throwable cause = broken != null ? broken : new IllegalStateException("memoryd is shutting down");
    for (Pending p; (p = queue.poll()) != null; ) {
      if (p.taskDone != null) {
        p.taskDone.completeExceptionally(cause);
      } else if (p != STOP) {
        p.future.completeExceptionally(cause);
      }
    }
  }

  /** The writer's state within one batch, as {@link Contextual} mutations see it. */
  private final class Batch implements Contextual.Context {
    final Map<RepoPath, String> overlay = new HashMap<>(); // a null value: the file is gone
    final java.util.Set<RepoPath> diskWrites = new java.util.HashSet<>();
    final Map<RepoPath, Optional<DriftView.Item>> drifts = new HashMap<>();
    /** What each file on disk held when this batch first read it (the base its writes assume). */
    final Map<RepoPath, Optional<String>> diskSeen = new HashMap<>();
    final List<Accepted> accepted = new ArrayList<>();

    @Override
    public Optional<String> recorded(RepoPath p) {
      if (overlay.containsKey(p)) {
        return Optional.ofNullable(overlay.get(p));
      }
      return recordedText(p);
    }

    @Override
    public Optional<String> disk(RepoPath p) {
      if (diskWrites.contains(p)) {
        return Optional.ofNullable(overlay.get(p));
      }
      // One read per file per batch: every decision of the batch rests on the same base, which
      // is also what the check before each rename compares against.
      Optional<String> seen = diskSeen.get(p);
      if (seen != null) {
        return seen;
      }
      try {
        Optional<String> t = readSettled(p);
        diskSeen.put(p, t);
        return t;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public DriftView drift() {
      return new DriftView() {
        @Override
        public Optional<Item> openOn(RepoPath path) {
          Optional<Item> in = drifts.get(path);
          return in != null ? in : drift.openOn(path);
        }

        @Override
        public boolean dismissed(RepoPath path, String text) {
          return drift.dismissed(path, text);
        }
      };
    }

    @Override
    public String newId() {
      return ids.next().value();
    }

    @Override
    public Grammar grammar() {
      return grammars.inForce(this::recorded);
    }

    @Override
    public SectionHasher hasher() {
      return hasher;
    }

    /** The file source of agents' mutations: this batch's texts, else the working tree. */
    FileSource source() {
      return p -> overlay.containsKey(p) ? Optional.ofNullable(overlay.get(p)) : disk(p);
    }

    void accept(Pending p, Mutation.Done d, WriteRequest req, PersonIdent author, Instant now) {
      accept(p, d, req, author, now, null);
    }

    void accept(Pending p, Mutation.Done d, WriteRequest req, PersonIdent author, Instant now, String proposal) {
      List<EventDraft> ds = drafts(req, d.events(), now); // first: a draft that cannot be a line changes nothing
      overlay.putAll(d.newContents());
      for (RepoPath path : d.newContents().keySet()) {
        if (!d.commitOnly().contains(path)) {
          diskWrites.add(path);
        }
      }
      for (Mutation.EventSpec e : d.events()) {
        if (HumanCapture.OP_DRIFT.equals(e.op())) {
          JsonNode dr = e.payload().path("drift");
          drifts.put(e.path(), Optional.of(new DriftView.Item(dr.path("id").asText(),
              dr.path("text").isNull() ? null : dr.path("text").asText())));
        } else if (HumanCapture.OP_RESOLVED.equals(e.op())) {
          drifts.put(e.path(), Optional.empty());
        }
      }
      accepted.add(new Accepted(p, d.events(), d.newContents(), ds, author, proposal));
    }
  }

  /**
   * Reads a file of the working tree for a batch. A text that differs from the recorded one is
   * read again once no git command is rewriting the tree, when one may have been at it during
   * the read: git deletes and re-creates each file it checks out, and a file caught missing or
   * half written is not a human's edit.
   */
  private Optional<String> readSettled(RepoPath p) throws IOException {
    if (index == null) {
      return files.read(p);
    }
    for (int tries = 0; ; tries++) {
      dev.memoryd.daemon.git.WorkTreeIndex.Mark before = index.mark();
      Optional<String> t = files.read(p);
      if (tries == 5 || t.equals(recordedText(p)) || !index.mayHaveRaced(before)) {
        return t;
      }
      index.awaitGitDone(lockWaitMs());
    }
  }

  private Optional<String> recordedText(RepoPath p) {
    return recorded.computeIfAbsent(p, k -> {
      try {
        return captured == null ? Optional.empty()
            : git.read(captured, k.value()).map(b -> new String(b, StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** The identity humans' working-tree edits are committed under: the repository's git user. */
  private PersonIdent humanIdent(Instant now) {
    PersonIdent who = new PersonIdent(git.repository());
    return new PersonIdent(who.getName(), who.getEmailAddress(), now, java.time.ZoneOffset.UTC);
  }

  private static String humanActor(PersonIdent who) {
    return "human:" + who.getName() + " <" + who.getEmailAddress() + ">";
  }

  /**
   * For the working tree's writer: a refusal when git has another branch checked out (the files
   * on disk are that branch's, and capturing them would record them on this one).
   */
  private Optional<Failure> elsewhere() throws IOException {
    if (!files.workTree()) {
      return Optional.empty();
    }
    String full = git.repository().getFullBranch();
    String want = org.eclipse.jgit.lib.Constants.R_HEADS + branch.value();
    if (full == null || full.equals(want)) {
      return Optional.empty();
    }
    return Optional.of(new Failure(ErrorReason.UNAVAILABLE, "the working tree has " + full.replaceFirst("^refs/heads/", "")
        + " checked out, but this daemon serves " + branch.value() + "; nothing was written (git checkout "
        + branch.value() + " to continue, or serve the other branch with --branch)", Map.of("checked_out", full)));
  }

  /**
   * Captures commits a human put on the branch since the recorded commit (with plain git). A
   * branch moved to a commit that does not contain memoryd's last one (a {@code git reset}) is a
   * refusal of the batch, not a failure of the writer: writes resume once the branch is back.
   */
  private Optional<Failure> captureCommits(Batch b, Instant now, Locks locks) throws IOException, RedoBatch, LockedOut {
    ObjectId ref = git.refNow();
    if (ref == null || ref.equals(captured)) {
      return Optional.empty();
    }
    if (!git.isAncestor(captured, ref) && index != null && dev.memoryd.daemon.git.StaleReset.tookOff(git, captured, ref)) {
      lockIndex(locks);
      Map<String, ObjectId> restored = dev.memoryd.daemon.git.StaleReset.undo(git, files.root(), locks.index.cache(),
          captured, ref);
      locks.index.note(restored, Map.of());
      LOG.warning("git's reset --hard HEAD took memoryd's commits after " + ref.name() + " off branch " + branch.value()
          + " (it resolved HEAD before they were made); the branch is back at " + captured.name()
          + ", and the files it rewrote: " + restored.keySet());
      git.holdRef(locks.waitMs); // the ref move consumed the lock; the batch goes on holding it
      return Optional.empty();
    }
    if (!git.isAncestor(captured, ref)) {
      return Optional.of(new Failure(ErrorReason.UNAVAILABLE, "branch " + branch.value() + " was moved to "
          + ref.name() + ", which does not contain memoryd's last commit " + captured.name() + " (a git reset?);"
          + " nothing was written. memoryd only writes on top of its own commits: move the branch back (git"
          + " reset --hard " + captured.name() + "), or restart memoryd to redo the ledger's later events on top"
          + " of the moved branch", Map.of("branch_head", ref.name(), "recorded_commit", captured.name())));
    }
    List<String> paths = git.changedPaths(captured, ref, RootLayout::isMemoryFile);
    List<GitStore.CommitInfo> commits = git.commitsBetween(captured, ref, 50);
    for (String path : paths) {
      recordedText(RepoPath.of(path)); // pin the old recorded text before moving on
    }
    captured = ref;
    git.reloadHead();
    if (paths.isEmpty()) {
      return Optional.empty();
    }
    List<HumanCapture.Item> items = new ArrayList<>();
    for (String path : paths) {
      RepoPath rp = RepoPath.of(path);
      items.add(new HumanCapture.Item(rp, b.recorded(rp).orElse(null),
          git.read(ref, path).map(x -> new String(x, StandardCharsets.UTF_8)).orElse(null)));
    }
    ObjectNode source = JsonNodeFactory.instance.objectNode();
    source.put("source", "commit");
    com.fasterxml.jackson.databind.node.ArrayNode cs = source.putArray("commits");
    for (GitStore.CommitInfo c : commits) {
      cs.addObject().put("id", c.id().name()).put("author", c.author().getName() + " <"
          + c.author().getEmailAddress() + ">").put("date", c.author().getWhenAsInstant().toString())
          .put("subject", c.subject());
    }
    PersonIdent who = commits.isEmpty() ? humanIdent(now) : commits.get(0).author();
    Mutation.Result r = new HumanCapture(b, items, source).apply(b.source(), now);
    if (r instanceof Mutation.Done d && d.changed()) {
      WriteRequest req = new WriteRequest(List.of(), new HumanCapture(b, items, source),
          "captured " + commits.size() + " commit(s) made with git: " + commits.get(0).subject(),
          humanActor(who), null, null);
      b.accept(new Pending(req, new CompletableFuture<>()), d, req, who, now);
    }
    return Optional.empty();
  }

  /** Captures a human's uncaptured edits of files an agent's declaration read, before it. */
  private Mutation.Done captureBefore(Batch b, Map<RepoPath, String> dirty, Instant now) {
    List<HumanCapture.Item> items = new ArrayList<>();
    dirty.forEach((p, text) -> items.add(new HumanCapture.Item(p, b.recorded(p).orElse(null), text)));
    ObjectNode source = JsonNodeFactory.instance.objectNode().put("source", "work_tree");
    Mutation.Result r = new HumanCapture(b, items, source).apply(b.source(), now);
    Mutation.Done d = (Mutation.Done) r;
    if (d.changed()) {
      PersonIdent who = humanIdent(now);
      WriteRequest req = WriteRequest.of(new HumanCapture(b, items, source),
          "captured a human's edit before an agent's write", humanActor(who));
      b.accept(new Pending(req, new CompletableFuture<>()), d, req, who, now);
    }
    return d;
  }

  /** Takes waiting declarations up to the batch size, stopping at a task (it runs between batches). */
  private void drainWrites(List<Pending> batch) {
    while (batch.size() < maxBatch) {
      Pending p = queue.peek();
      if (p == null || p.task != null) {
        return;
      }
      batch.add(queue.poll());
    }
  }

  /**
   * Runs {@code work} on the writer thread between batches: it sees the files, the ledger and the
   * branch at rest, with no write half done. For checks that compare them (replay --verify).
   */
  public <T> CompletableFuture<T> exclusive(java.util.concurrent.Callable<T> work) {
    CompletableFuture<T> f = new CompletableFuture<>();
    if (broken != null || !running || !accepting) {
      f.completeExceptionally(new IllegalStateException("the writer has stopped", broken));
      return f;
    }
    queue.add(new Pending(null, null, () -> {
      try {
        f.complete(work.call());
      } catch (Exception | Error e) {
        f.completeExceptionally(e);
      }
    }, f));
    return f;
  }

  /** What {@code replay --onto-latest} did to one file. {@code outcome}: up_to_date, applied or halted. */
  public record OntoFile(String path, String outcome, int applied, String reanchored, String halt) {}

  /**
   * {@code replay --onto-latest}: every memory file whose text on disk is not its recorded text
   * is taken as a snapshot (say, restored from a backup) and brought up to date with the newer
   * ledger events (see {@link OntoLatest}). Updated files are written to the working tree, then
   * captured (what the snapshot held beyond the ledger becomes a human's edit); a file that
   * halts is flagged as drift with the snapshot's text. Call on the writer thread ({@link #exclusive}).
   */
  public List<OntoFile> ontoLatest(java.util.function.IntFunction<SectionHasher> hasherFor) throws IOException {
    Map<RepoPath, String> snaps = new LinkedHashMap<>();
    for (RepoPath p : memoryFilesOnDisk(files.root())) {
      Optional<String> disk = files.read(p);
      if (disk.isPresent() && !disk.equals(recordedText(p))) {
        snaps.put(p, disk.get());
      }
    }
    List<OntoLatest.Result> rs = new OntoLatest(grammarInForce(), chain, hasherFor).run(snaps, replayers::mutationFor);
    Map<String, byte[]> write = new LinkedHashMap<>();
    OntoLatest.changed(rs, snaps).forEach((p, t) -> write.put(p.value(), t.getBytes(StandardCharsets.UTF_8)));
    files.writeAll(write);
    List<OntoFile> out = new ArrayList<>();
    List<RepoPath> capture = new ArrayList<>();
    for (OntoLatest.Result r : rs) {
      out.add(new OntoFile(r.path().value(), r.outcome(), r.applied(), r.reanchored(), r.halt()));
      if (r.halt() != null) {
        String text = r.text();
        RepoPath path = r.path();
        String reason = r.halt();
        Contextual flag = ctx -> (src, now) -> new Mutation.Done(Map.of(), List.of(HumanCapture.flagged(path,
            ctx.drift().openOn(path).map(DriftView.Item::id).orElseGet(ctx::newId),
            new dev.memoryd.grammar.human.HumanEdits.Breaks("replay_halted", reason, List.of()), text,
            OntoLatest.source())), true);
        submit(WriteRequest.of(flag, "replay --onto-latest halted " + path.value(), "memoryd-replay"));
      } else {
        capture.add(r.path());
      }
    }
    if (!capture.isEmpty()) {
      capture(capture);
    }
    return out;
  }

  /** How replay finds other branches' chains (a chain that starts with a fork replays its parent first). */
  public void setChains(java.util.function.Function<BranchName, Optional<Chain>> lookup) {
    replay.setChains(lookup);
  }

  /**
   * Rebuilds every file the ledger writes from the ledger alone ({@link LedgerReplay#fromEmpty}).
   * Call on the writer thread (see {@link #exclusive}).
   */
  public LedgerReplay.ReplayState replayFromEmpty(java.util.function.LongConsumer progress) throws IOException {
    return replay.fromEmpty(progress);
  }

  /** How long a batch waits for a git command holding the index or the branch's ref lock (read per batch: tests change it). */
  private static long lockWaitMs() {
    return Long.getLong("memoryd.refLockWaitMs", 2000);
  }

  private void process(List<Pending> batch) throws IOException, UnsettledBatch {
    Optional<Failure> unsettled = settle();
    if (unsettled.isPresent()) {
      WriteOutcome refused = new WriteOutcome.Rejected(-1, unsettled.get());
      batch.forEach(p -> p.future.complete(refused));
      return;
    }
    long lockWaitMs = lockWaitMs();
    long l0 = System.nanoTime();
    boolean locked = git.holdRef(lockWaitMs);
    stats.add(PhaseStats.Phase.REF_LOCK, System.nanoTime() - l0);
    if (!locked) {
      refuseLocked(batch, git.refLockFile(), lockWaitMs);
      return;
    }
    Locks locks = new Locks(lockWaitMs);
    try {
      for (int attempt = 1; ; attempt++) {
        ObjectId capturedBefore = captured;
        try {
          processLocked(batch, locks);
          break;
        } catch (RedoBatch redo) {
          captured = capturedBefore; // the commit that moved the branch is captured by the next try
          if (attempt == 3) {
            WriteOutcome busy = new WriteOutcome.Rejected(-1, new Failure(ErrorReason.UNAVAILABLE, "the branch kept"
                + " moving under the writer (git commands committing on it); nothing was recorded: retry",
                Map.of("recorded", false)));
            batch.forEach(p -> p.future.complete(busy));
            break;
          }
        } catch (LockedOut out) {
          refuseLocked(batch, out.lock, lockWaitMs);
          break;
        } catch (IOException | RuntimeException e) {
          captured = capturedBefore; // a capture this batch began is redone by the next one
          throw e;
        }
      }
      health.succeeded();
    } finally {
      git.releaseRef(); // when the batch moved the ref, the lock is already gone
      locks.close();
    }
  }

  /** The index lock a batch takes just before it changes the working tree (git's order: index, then ref). */
  private static final class Locks implements AutoCloseable {
    final long waitMs;
    dev.memoryd.daemon.git.WorkTreeIndex.Held index;
    /** When {@link #index} was taken: how long git commands were kept out is what a human feels. */
    long heldSince;

    Locks(long waitMs) {
      this.waitMs = waitMs;
    }

    @Override
    public void close() {
      if (index != null) {
        index.close();
        index = null;
      }
    }
  }

  /** The branch moved while a batch waited for the index: the batch is redone on top of it. */
  private static final class RedoBatch extends Exception {
    private static final long serialVersionUID = 1L;

    RedoBatch() {
      super(null, null, false, false);
    }
  }

  /** A git command kept a lock the batch needs past the wait. */
  private static final class LockedOut extends Exception {
    private static final long serialVersionUID = 1L;
    final java.nio.file.Path lock;

    LockedOut(java.nio.file.Path lock) {
      super(null, null, false, false);
      this.lock = lock;
    }
  }

  /**
   * Takes the index lock for a batch that holds the ref lock. When a git command holds the
   * index, it may be about to move the ref: the ref lock is let go until the command is done, so
   * it does not fail on it, and the batch is redone when the branch moved meanwhile.
   */
  private void lockIndex(Locks locks) throws IOException, RedoBatch, LockedOut {
    if (index == null || locks.index != null) {
      return;
    }
    Optional<dev.memoryd.daemon.git.WorkTreeIndex.Held> h = index.lock(0);
    if (h.isEmpty()) {
      git.releaseRef();
      h = index.lock(locks.waitMs);
      if (h.isEmpty()) {
        throw new LockedOut(index.lockFile());
      }
      locks.index = h.get();
      if (!git.holdRef(locks.waitMs)) {
        throw new LockedOut(git.refLockFile());
      }
      locks.heldSince = System.nanoTime();
      if (!java.util.Objects.equals(git.refNow(), git.head())) {
        // The command committed: the batch is redone on top of its commit, and git commands are
        // not kept out while it is (the ref lock alone keeps the branch still).
        locks.close();
        throw new RedoBatch();
      }
      return;
    }
    locks.index = h.get();
    locks.heldSince = System.nanoTime();
  }

  private static void refuseLocked(List<Pending> batch, java.nio.file.Path lock, long waitMs) {
    // Nothing is recorded yet: refuse the batch rather than race the git command.
    WriteOutcome busy = new WriteOutcome.Rejected(-1, new Failure(ErrorReason.UNAVAILABLE, "the branch is locked by"
        + " another git command (" + lock + " exists for over " + waitMs + " ms); nothing"
        + " was recorded: retry, or remove the lock file if no git command is running", Map.of("lock", lock.toString())));
    for (Pending p : batch) {
      p.future.complete(busy);
    }
  }

  /** A batch that failed and whose undoing failed too: what is left to undo. */
  private BatchRollback pendingRollback;

  /**
   * Finishes undoing a failed batch whose rollback failed (with back-off between tries): empty
   * once the ledger, the files and the branch agree again; else the refusal for this batch.
   */
  private Optional<Failure> settle() {
    BatchRollback r = pendingRollback;
    if (r == null) {
      return Optional.empty();
    }
    if (!health.mayRetry()) {
      return Optional.of(health.refusal());
    }
    try {
      r.run();
      pendingRollback = null;
      health.succeeded();
      LOG.info("the failed batch is undone; writes resume");
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      health.unsettled(e);
      return Optional.of(health.refusal());
    }
  }

  private void processLocked(List<Pending> batch, Locks locks)
      throws IOException, UnsettledBatch, RedoBatch, LockedOut {
    long t0 = System.nanoTime();
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    Batch b = new Batch();
    // Refusals wait for the batch: a caller that hears "nothing to do" must also find the
    // captures its request triggered already published.
    List<Runnable> replies = new ArrayList<>();
    Optional<Failure> moved = elsewhere();
    if (moved.isEmpty()) {
      moved = captureCommits(b, now, locks);
    }
    if (moved.isEmpty()) {
      moved = ledgerOnDisk(b, now, locks);
    }
    if (moved.isPresent()) {
      if (!b.accepted.isEmpty()) {
        publish(b, now, locks); // what memoryd itself records of the refusal's cause (a drift item)
      }
      WriteOutcome refused = new WriteOutcome.Rejected(-1, moved.get());
      batch.forEach(p -> p.future.complete(refused));
      return;
    }
    Map<String, Pending> keysInBatch = new HashMap<>();
    for (Pending p : batch) {
      WriteRequest req = p.req;
      if (req.idempotencyKey() != null) {
        WriteOutcome prior = idempotent.get(req.idempotencyKey());
        if (prior != null) {
          reply(replies, p, prior);
          continue;
        }
        Pending twin = keysInBatch.putIfAbsent(req.idempotencyKey(), p);
        if (twin != null) {
          twin.future.thenAccept(p.future::complete);
          continue;
        }
      }
      Mutation m = req.mutation() != null ? req.mutation()
          : new GrammarMutation(grammars, withSliceIds(req.ops()), hasher);
      boolean human = m instanceof Contextual;
      Map<RepoPath, String> dirty = new java.util.TreeMap<>(java.util.Comparator.comparing(RepoPath::value));
      Map<RepoPath, String> driftHit = new HashMap<>();
      FileSource src = human ? b.source() : path -> {
        if (GrammarFiles.isGrammarFile(path)) {
          return b.recorded(path); // the grammar in force is what the ledger recorded, never a hand edit
        }
        if (b.overlay.containsKey(path) || !RootLayout.isMemoryFile(path)) {
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
      } catch (SecurityException | IllegalArgumentException e) {
        // Confined to this declaration: the batch's other declarations go on.
        reply(replies, p, new WriteOutcome.Rejected(-1,
            Failure.of(ErrorReason.INVALID_REQUEST, e.getMessage())));
        continue;
      }
      if (!driftHit.isEmpty()) {
        reply(replies, p, driftRefusal(driftHit));
        continue;
      }
      if (!dirty.isEmpty()) {
        // Invariant 4: what the human wrote is recorded first, under their name.
        Mutation.Done captured = captureBefore(b, dirty, now);
        Set<RepoPath> drifted = HumanCapture.drifted(captured.events());
        if (!drifted.isEmpty()) {
          Map<RepoPath, String> hit = new HashMap<>();
          drifted.forEach(d -> b.drift().openOn(d).ifPresent(o -> hit.put(d, o.id())));
          reply(replies, p, driftRefusal(hit));
          continue;
        }
        if (r instanceof Mutation.Done done) {
          Optional<WriteOutcome> clash = humanClash(HumanCapture.changedKeys(captured.events()), done);
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
        replies.add(() -> p.future.complete(new WriteOutcome.Unchanged(git.head() == null ? null : git.head().name())));
        continue;
      }
      try {
        if (req.mutation() == null && needsReview(b, a)) {
          // Sections the user marked for review: the change goes to a proposal branch instead.
          String id = ids.next().value();
          b.accept(p, proposal(id, req, a, now), req, null, now, id);
          continue;
        }
        b.accept(p, a, req, null, now);
      } catch (IllegalArgumentException e) {
        // A declaration no ledger line can hold (e.g. a string with no UTF-8 form): only it is refused.
        reply(replies, p, new WriteOutcome.Rejected(-1, Failure.of(ErrorReason.INVALID_REQUEST, e.getMessage())));
      }
    }
    stats.add(PhaseStats.Phase.APPLY, System.nanoTime() - t0);
    List<Accepted> accepted = b.accepted;
    if (!accepted.isEmpty()) {
      publish(b, now, locks);
    }
    replies.forEach(Runnable::run);
  }

  /** How long a git command that rewrote the working tree is given to move the branch (git waits 100 ms for a ref lock). */
  private static final long REWRITE_GRACE_NANOS = Long.getLong("memoryd.rewriteGraceMs", 250) * 1_000_000;

  /**
   * Checks the chain's active segment on disk before anything is appended to it. An older
   * version there means a git command (a reset, a checkout) rewrote the working tree: holding
   * the index, the batch gives it time to move the branch (then the batch is redone and sees a
   * reset); when it failed to, the branch's files are put back ({@link
   * dev.memoryd.daemon.git.RolledBackTree}) instead of being taken for a human's edit. Any other
   * difference is tampering: the chain's bytes are put back, the changed copy kept, a drift item
   * recorded with this batch and its declarations refused; nothing tampered is committed.
   */
  private Optional<Failure> ledgerOnDisk(Batch b, Instant now, Locks locks) throws IOException, RedoBatch, LockedOut {
    Chain.DiskState state = chain.activeOnDisk();
    if (state == Chain.DiskState.INTACT) {
      return Optional.empty();
    }
    String segment = chain.activeSegmentPath();
    if (state == Chain.DiskState.ALTERED) {
      // Nothing is appended to, or committed from, a segment that is not what the chain wrote: the
      // chain's own bytes go back, the changed copy is kept as evidence, and a drift item says so.
      long line = chain.firstAlteredSeq();
      String kept = ".memoryd/tampered/" + segment.replace('/', '_') + "." + clock.millis();
      chain.restoreAlteredActive(files.root().resolve(kept));
      String reason = "line " + line + " of ledger segment " + segment + " was changed on disk; memoryd put back the"
          + " lines it wrote (the changed copy is kept in " + kept + ")";
      RepoPath path = RepoPath.of(segment);
      Mutation.Done d = new Mutation.Done(Map.of(), List.of(HumanCapture.flagged(path, ids.next().value(),
          new dev.memoryd.grammar.human.HumanEdits.Breaks("ledger_tampered", reason, List.of()), null,
          JsonNodeFactory.instance.objectNode().put("source", "work_tree").put("kept", kept))), true);
      WriteRequest req = WriteRequest.of((src, t) -> d, "ledger segment " + segment + " was changed on disk", "memoryd");
      b.accept(new Pending(req, new CompletableFuture<>()), d, req, null, now); // recorded with this batch
      LOG.warning(reason);
      return Optional.of(new Failure(ErrorReason.UNAVAILABLE, "ledger segment " + segment + " was changed on disk"
          + " (line " + line + " is not what memoryd wrote); nothing was recorded: memoryd put its lines back, kept the"
          + " changed copy in " + kept + " and opened a drift item; retry",
          Map.of("segment", segment, "line", line, "kept", kept, "recorded", false)));
    }
    if (index == null) {
      chain.restoreOlderActive(); // no working tree of its own: only the segment file can be behind
      return Optional.empty();
    }
    // The git command that wrote the older tree may be waiting for the ref lock this batch holds
    // (git waits 100 ms for a ref lock). Holding the index keeps a human's commit from recording
    // the rolled-back files meanwhile; the ref lock is let go so the command can finish.
    lockIndex(locks);
    git.releaseRef();
    long deadline = System.nanoTime() + REWRITE_GRACE_NANOS;
    while (java.util.Objects.equals(git.refNow(), git.head()) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted while waiting for a git command");
      }
    }
    if (!git.holdRef(locks.waitMs)) {
      throw new LockedOut(git.refLockFile());
    }
    if (!java.util.Objects.equals(git.refNow(), git.head())) {
      throw new RedoBatch(); // it moved the branch: the next try sees a reset, not a rewrite
    }
    // The branch never moved: the git command failed half-way. What it wrote is not a human's edit.
    dev.memoryd.daemon.git.WorkTreeIndex.Held idx = locks.index;
    Map<String, ObjectId> repaired = dev.memoryd.daemon.git.RolledBackTree.repair(git, files.root(), idx.cache());
    Map<String, Long> sizes = new HashMap<>();
    if (chain.activeOnDisk() == Chain.DiskState.OLDER) {
      chain.restoreOlderActive();
    }
    idx.note(repaired, sizes);
    LOG.warning("a git command rewrote the working tree without moving branch " + branch.value()
        + "; put back the branch's version of " + repaired.keySet());
    return Optional.empty();
  }

  private static void reply(List<Runnable> replies, Pending p, WriteOutcome out) {
    replies.add(() -> p.future.complete(out));
  }

  /**
   * Makes the batch's declarations durable and publishes them. Everything no one else can see
   * comes first, with no lock but the ref's: ledger lines computed and forced to the journal,
   * commits built and their pack written, temp files staged and forced. Then, holding the index
   * lock too, the short part git commands must not interleave with: ledger lines written to the
   * segment, files renamed into place, ref moved, index written. The segment and the directories
   * are forced after the index lock is let go, before anyone is answered (without a journal, the
   * segment is forced under the lock). Until the ref moves, a failure undoes what was begun (files
   * put back, ledger lines cut off) before it is thrown, so no caller hears "not recorded" of a
   * declaration a restart would redo; when that undoing fails too, {@link UnsettledBatch}.
   */
  private void publish(Batch b, Instant now, Locks locks)
      throws IOException, UnsettledBatch, RedoBatch, LockedOut {
    List<Accepted> accepted = b.accepted;
    Map<RepoPath, String> overlay = b.overlay;
    long seqBefore = chain.head().seq();
    Map<String, byte[]> finalFiles = new LinkedHashMap<>();
    for (RepoPath p : b.diskWrites) {
      String t = overlay.get(p);
      if (t != null) {
        finalFiles.put(p.value(), t.getBytes(StandardCharsets.UTF_8));
      }
    }
    BatchRollback rollback = new BatchRollback(files, chain, journal, seqBefore, finalFiles, before(b, finalFiles.keySet()));
    long t1 = System.nanoTime();
    List<List<Event>> events = new ArrayList<>();
    List<Map<String, byte[]>> segments = new ArrayList<>();
    boolean hooked = false;
    try {
      for (Accepted a : accepted) {
        events.add(chain.prepare(a.drafts));
        segments.add(chain.preparedSegments());
        if (a.p.req.mutation() instanceof ChainHook hook) {
          hook.afterAppend(chain); // e.g. a key rotation: lines after this one use the new key
          hooked = true;
        }
      }
    } catch (RuntimeException e) {
      UnsettledBatch u = undo(rollback, e, hooked);
      if (u != null) {
        throw u;
      }
      throw e;
    }
    long t2 = System.nanoTime();
    stats.add(PhaseStats.Phase.LEDGER_APPEND, t2 - t1);
    // The temp files are written and forced meanwhile; they are renamed into place only once the
    // ledger holds every line they reflect and git commands are kept out.
    Set<String> skipped = ConcurrentHashMap.newKeySet();
    IoAction placed = null;
    Future<IoAction> staged = stager.submit(() -> {
      long s0 = System.nanoTime();
      Map<String, Optional<String>> expected = new HashMap<>();
      for (String f : finalFiles.keySet()) {
        Optional<String> seen = b.diskSeen.get(RepoPath.of(f));
        if (seen != null) {
          expected.put(f, seen);
        }
      }
      IoAction a = files.stage(finalFiles, expected, path -> {
        skipped.add(path);
        LOG.warning(path + " was saved by someone else while memoryd wrote it; their version is kept and will be captured");
      });
      stats.add(PhaseStats.Phase.FILES, System.nanoTime() - s0);
      return a;
    });
    List<ObjectId> commits = new ArrayList<>();
    Map<String, Long> sizes = new HashMap<>();
    try (CommitBatch gb = git.batch()) {
      boolean written = false;
      boolean journaled = false;
      try {
        for (int i = 0; i < accepted.size(); i++) {
          Accepted a = accepted.get(i);
          List<Event> ev = events.get(i);
          Event last = ev.get(ev.size() - 1);
          Map<String, byte[]> commitFiles = new LinkedHashMap<>();
          a.contents.forEach((p, t) -> commitFiles.put(p.value(), t == null ? null : t.getBytes(StandardCharsets.UTF_8)));
          commitFiles.putAll(segments.get(i));
          commitFiles.forEach((p, bytes) -> sizes.put(p, bytes == null ? -1L : bytes.length));
          commits.add(gb.commit(commitFiles, a.author != null ? a.author : CommitFormat.author(a.p.req.actor(), now), CommitFormat.committer(now),
              CommitFormat.message(Mutation.summaries(a.specs), a.p.req.rationale(), a.p.req.actor(),
                  ev.stream().map(Event::eventId).toList(), last.seq(), last.integrity().lineHash(), chainTrailer()),
              a.p.req.mutation() instanceof MergeParent mp ? mp.mergeParent() : null));
        }
        long t5 = System.nanoTime();
        stats.add(PhaseStats.Phase.GIT_COMMIT, t5 - t2);
        gb.flush();
        long t6 = System.nanoTime();
        stats.add(PhaseStats.Phase.GIT_FLUSH, t6 - t5);
        gb.prepareMove();
        if (journal != null) {
          // Forced before git commands are kept out, so the lock is held for no fsync of the ledger.
          journaled = true;
          chain.journalPrepared(journal);
          stats.add(PhaseStats.Phase.LEDGER_FSYNC, System.nanoTime() - t6);
        }
        long r = System.nanoTime();
        IoAction ready = awaitDurable(staged); // forced before git commands are kept out, too
        stats.add(PhaseStats.Phase.WAIT_DURABLE, System.nanoTime() - r);
        long l0 = System.nanoTime();
        lockIndex(locks);
        if (rewrittenByGit(b, finalFiles, locks)) {
          throw new RedoBatch();
        }
        long w = System.nanoTime();
        stats.add(PhaseStats.Phase.INDEX_LOCK, w - l0);
        if (locks.index != null) {
          stats.add(PhaseStats.Phase.INDEX_CHECK, w - locks.heldSince);
        }
        written = true;
        chain.writePrepared();
        long sw = System.nanoTime();
        stats.add(PhaseStats.Phase.SEGMENT_WRITE, sw - w);
        if (journal == null) {
          chain.sync();
          stats.add(PhaseStats.Phase.LEDGER_FSYNC, System.nanoTime() - sw);
        }
        long r0 = System.nanoTime();
        placed = ready;
        ready.run(); // only now: the ledger holds every line these files reflect
        stats.add(PhaseStats.Phase.FILES_PLACE, System.nanoTime() - r0);
        long m = System.nanoTime();
        gb.moveRef().orThrow();
        stats.add(PhaseStats.Phase.GIT_REF, System.nanoTime() - m);
      } catch (IOException | RuntimeException | RedoBatch | LockedOut e) {
        // Never leave the stager running past a failed batch, then undo what was done.
        abortStaged(staged, placed);
        if (!written && (e instanceof RedoBatch || e instanceof LockedOut) && forgetJournal(journaled, e)) {
          chain.discardPrepared(); // nothing reached the segment, and the journal holds nothing
          throw e;
        }
        UnsettledBatch u = undo(rollback, e, hooked);
        if (u != null) {
          throw u;
        }
        if (e instanceof IOException io) {
          throw io;
        }
        if (e instanceof RuntimeException re) {
          throw re;
        }
        throw new IllegalStateException(e);
      }
      // Published: from here on nothing may undo it, and every reply says it is recorded.
      if (files.workTree()) {
        Map<String, ObjectId> clean = new LinkedHashMap<>(gb.written());
        clean.keySet().removeAll(skipped);
        recordIndex(locks, clean, sizes, gb.removed());
      }
    }
    // The segment and the renames are made durable after the index lock is let go (git commands
    // wait for no fsync of ours) and before anyone is answered.
    if (journal != null) {
      long f0 = System.nanoTime();
      try {
        chain.sync();
        journal.clear(false); // stale from here on: the segment holds its lines
      } catch (IOException | java.io.UncheckedIOException e) {
        // Published already: the journal and the branch's commit both hold the lines.
        LOG.log(Level.SEVERE, "could not force the ledger after a write; its journal and the branch hold it", e);
      }
      stats.add(PhaseStats.Phase.LEDGER_FSYNC, System.nanoTime() - f0);
    }
    if (placed != null) {
      long d0 = System.nanoTime();
      try {
        placed.settle();
      } catch (IOException e) {
        // Published already; the ledger, fsynced first, lets recovery redo a rename a crash loses.
        LOG.log(Level.WARNING, "could not fsync the directories of a write; the ledger holds it", e);
      }
      stats.add(PhaseStats.Phase.FILES_RENAME, System.nanoTime() - d0);
    }
    overlay.forEach((p, t) -> {
      // Memory files are compared with what humans saved; the grammar's files decide the grammar in force.
      if (RootLayout.isMemoryFile(p) || GrammarFiles.isGrammarFile(p)) {
        recorded.put(p, Optional.ofNullable(t));
      }
    });
    captured = git.head();
    health.succeeded(); // before any reply: a client that asks right after sees the writer as it is
    stats.batch(accepted.size());
    // Listeners see the batch before any client hears of it, so a reply never outruns them.
    for (List<Event> ev : events) {
      notifyListeners(ev);
    }
    for (int i = 0; i < accepted.size(); i++) {
      Accepted a = accepted.get(i);
      WriteOutcome out = new WriteOutcome.Committed(commits.get(i).name(),
          events.get(i).stream().map(WritePipeline::ref).toList(), false, a.proposal);
      if (a.p.req.idempotencyKey() != null) {
        idempotent.put(a.p.req.idempotencyKey(), out);
      }
      a.p.future.complete(out);
    }
    if (++batchesSinceCompaction >= COMPACT_EVERY && (compaction == null || compaction.isDone())) {
      batchesSinceCompaction = 0;
      compaction = compactor.submit(this::compact);
    }
  }

  /**
   * Whether a git command (a stash, a reset, a checkout) rewrote the ledger segment or a file this
   * batch read, between the batch's reading and now: the batch then rests on a state that is
   * gone and is redone on top of the new one. Git records what it writes in the index, which is
   * how its rewrite is told from an editor's save (that one is kept and captured next).
   */
  private boolean rewrittenByGit(Batch b, Map<String, byte[]> finalFiles, Locks locks) throws IOException {
    if (chain.activeOnDisk() != Chain.DiskState.INTACT) {
      return true;
    }
    if (locks.index == null) {
      return false;
    }
    org.eclipse.jgit.dircache.DirCache dc = locks.index.cache();
    try (org.eclipse.jgit.lib.ObjectInserter.Formatter fmt = new org.eclipse.jgit.lib.ObjectInserter.Formatter()) {
      for (String f : finalFiles.keySet()) {
        Optional<String> seen = b.diskSeen.get(RepoPath.of(f));
        if (seen == null) {
          continue;
        }
        java.nio.file.Path file = files.root().resolve(f);
        Optional<byte[]> now = java.nio.file.Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)
            ? Optional.of(java.nio.file.Files.readAllBytes(file)) : Optional.empty();
        if (now.map(x -> new String(x, StandardCharsets.UTF_8)).equals(seen)) {
          continue;
        }
        ObjectId id = now.map(x -> fmt.idFor(org.eclipse.jgit.lib.Constants.OBJ_BLOB, x)).orElse(null);
        org.eclipse.jgit.dircache.DirCacheEntry e = dc.getEntry(f);
        if (e != null ? e.getObjectId().equals(id) : id == null) {
          return true;
        }
      }
    }
    return false;
  }

  /** What each file the batch writes held before it: the batch's own reading, else the branch head's text. */
  private Map<String, Optional<byte[]>> before(Batch b, Set<String> paths) throws IOException {
    Map<String, Optional<byte[]>> out = new HashMap<>();
    for (String p : paths) {
      Optional<String> seen = b.diskSeen.get(RepoPath.of(p));
      out.put(p, seen != null ? seen.map(t -> t.getBytes(StandardCharsets.UTF_8))
          : git.head() == null ? Optional.empty() : git.read(git.head(), p));
    }
    return out;
  }

  /**
   * Forgets the journal of a batch that is given up before any of its lines reached the segment:
   * true once nothing of the batch is left for a restart to redo; false (with the failure added
   * to {@code cause}) when the journal could not be cleared, so the batch must be undone in full.
   */
  private boolean forgetJournal(boolean journaled, Exception cause) {
    if (!journaled) {
      return true;
    }
    try {
      journal.clear(true);
      return true;
    } catch (IOException e) {
      cause.addSuppressed(e);
      return false;
    }
  }

  /**
   * Undoes a batch that never published: null once undone (nothing recorded, the cause is what
   * to throw), else an {@link UnsettledBatch} to throw, the undoing having failed too.
   */
  private UnsettledBatch undo(BatchRollback rollback, Exception cause, boolean keyRotated) {
    if (keyRotated) {
      // The chain already signs with the new key; cutting the rotation line off would leave it so.
      pendingRollback = rollback;
      return new UnsettledBatch("a key rotation was cut short; restart memoryd", cause);
    }
    try {
      rollback.run();
      LOG.log(Level.WARNING, "a batch failed and was undone; nothing of it is recorded", cause);
      return null;
    } catch (IOException | RuntimeException again) {
      cause.addSuppressed(again);
      pendingRollback = rollback;
      LOG.log(Level.SEVERE, "a batch failed and could not be undone; writes wait until it is", cause);
      return new UnsettledBatch(WriterHealth.describe(again), cause);
    }
  }

  /** Records the batch's files in the index under the lock the batch holds; a failure leaves them for later. */
  private void recordIndex(Locks locks, Map<String, ObjectId> clean, Map<String, Long> sizes, Set<String> removed) {
    long t0 = System.nanoTime();
    try {
      dev.memoryd.daemon.git.WorkTreeIndex.Held idx = locks.index;
      locks.index = null; // record releases it
      if (idx != null) {
        idx.record(clean, sizes, removed, git::modeOf);
        stats.add(PhaseStats.Phase.INDEX_HELD, System.nanoTime() - locks.heldSince);
      } else {
        indexBacklog.putAll(clean);
      }
    } catch (IOException e) {
      // The batch is published; only humans' `git status` waits for the index, retried when idle.
      LOG.log(Level.WARNING, "could not update the index after a write; retried when writes pause", e);
      indexBacklog.putAll(clean);
    }
    stats.add(PhaseStats.Phase.INDEX, System.nanoTime() - t0);
  }

  private boolean needsReview(Batch b, Mutation.Done a) {
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
    ObjectId commit = git.commitOnNewBranch(branchName, git.head(), files, CommitFormat.author(req.actor(), now), CommitFormat.committer(now),
        "proposal " + id + ": " + String.join("; ", Mutation.summaries(a.events())) + "\n\n"
            + (req.rationale() == null ? "" : req.rationale().strip() + "\n\n") + "Memoryd-Actor: " + req.actor() + "\n");
    ObjectNode payload = JsonNodeFactory.instance.objectNode();
    ObjectNode pr = payload.putObject("proposal");
    pr.put("id", id);
    pr.put("branch", branchName);
    pr.put("commit", commit.name());
    com.fasterxml.jackson.databind.node.ArrayNode ops = pr.putArray("ops");
    for (Op op : withSliceIds(req.ops())) {
      ops.add(OpCodec.toJson(op));
    }
    com.fasterxml.jackson.databind.node.ArrayNode base = pr.putArray("base");
    for (Mutation.EventSpec e : a.events()) {
      base.addObject().put("path", e.path() == null ? null : e.path().value()).put("section", e.sectionAnchor())
          .put("hash", e.beforeHash()).put("summary", e.summary());
    }
    Mutation.EventSpec first = a.events().get(0);
    return new Mutation.Done(Map.of(), List.of(new Mutation.EventSpec(OP_PROPOSAL, first.path(), first.sectionAnchor(),
        first.beforeHash(), null, payload, List.of(), "proposed " + String.join("; ", Mutation.summaries(a.events()))
            + " (for review)")), true);
  }

  private static WriteOutcome driftRefusal(Map<RepoPath, String> hit) {
    Map.Entry<RepoPath, String> first = hit.entrySet().iterator().next();
    return new WriteOutcome.Rejected(-1, new Failure(ErrorReason.DRIFT, first.getKey().value()
        + " waits in the drift queue (item " + first.getValue() + "): a human's edit broke its grammar;"
        + " a maintainer resolves it with 'memoryd drift resolve " + first.getValue() + "'",
        Map.of("path", first.getKey().value(), "drift_id", first.getValue())));
  }

  /** A conflict when an agent's op targets a section the human just changed. */
  private static Optional<WriteOutcome> humanClash(Map<RepoPath, Set<String>> changed, Mutation.Done agent) {
    for (Mutation.EventSpec e : agent.events()) {
      Set<String> keys = e.path() == null ? null : changed.get(e.path());
      if (keys != null && e.sectionAnchor() != null && keys.contains(e.sectionAnchor())) {
        return Optional.of(new WriteOutcome.Rejected(-1, new Failure(ErrorReason.CONFLICT, "section '"
            + e.sectionAnchor() + "' of " + e.path().value() + " was just changed by a human; their edit"
            + " is recorded, read the section again and retry", Map.of("path", e.path().value(),
                "section", e.sectionAnchor()))));
      }
    }
    return Optional.empty();
  }

  private List<Op> withSliceIds(List<Op> ops) {
    List<Op> out = new ArrayList<>(ops.size());
    for (Op op : ops) {
      if (op instanceof CreateEntity c && (c.sliceIds() == null || c.sliceIds().isEmpty())) {
        out.add(c.withSliceIds(List.of(ids.next().value(), ids.next().value())));
      } else {
        out.add(op);
      }
    }
    return out;
  }

  private List<EventDraft> drafts(WriteRequest req, List<Mutation.EventSpec> specs, Instant now) {
    List<EventDraft> out = new ArrayList<>();
    String declId = null;
    for (int i = 0; i < specs.size(); i++) {
      Mutation.EventSpec o = specs.get(i);
      String eventId = ids.next().value();
      if (declId == null) {
        declId = eventId;
      }
      ObjectNode payload = o.payload().deepCopy();
      ObjectNode decl = payload.putObject("decl");
      decl.put("id", declId);
      decl.put("index", i);
      decl.put("count", specs.size());
      if (req.provenance() != null) {
        payload.set("provenance", req.provenance().toJson());
      }
      EntityRef ent = o.path() == null ? new EntityRef(null, null, null) : EntityRef.of(o.path());
      out.add(new EventDraft(eventId, now.toString(), branch.value(), req.actor(), ent.userId(),
          ent.entityType(), ent.entityId(), o.path() == null ? null : o.path().value(), o.op(),
          o.sectionAnchor(), o.beforeHash(), o.afterHash(), payload, req.rationale(),
          o.evidenceRefs() == null ? List.of() : o.evidenceRefs(), req.idempotencyKey(),
          req.toolCallId()));
    }
    return out;
  }

  /** Waits for the stager and removes the temp files of a batch that never renamed them into place. */
  private static void abortStaged(Future<IoAction> staged, IoAction placed) {
    try {
      IoAction a = staged.get();
      if (placed == null) {
        a.abort(); // a batch that failed before its renames leaves the files as they were
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | IOException | RuntimeException e) {
      LOG.log(Level.FINE, "I/O of a failed batch also failed", e instanceof ExecutionException ee ? ee.getCause() : e);
    }
  }

  private static <T> T awaitDurable(Future<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while making a batch durable");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IllegalStateException("making a batch durable failed", e.getCause());
    }
  }

  /** Off the writer thread: a failed roll-up leaves more packs, never wrong data. */
  private void compact() {
    long t = System.nanoTime();
    try {
      git.compactPacks();
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "pack roll-up failed; packs stay as they are and the next roll-up retries", e);
    }
    stats.add(PhaseStats.Phase.COMPACT, System.nanoTime() - t);
  }

  /** Stops taking writes, finishes the batch in hand and flushes the index. */
  @Override
  public void close() {
    accepting = false;
    queue.add(STOP);
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stager.shutdown();
    compactor.shutdown();
    try {
      compactor.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (broken == null && !indexBacklog.isEmpty()) {
      try {
        git.updateIndex(files.root(), indexBacklog);
      } catch (IOException e) {
        LOG.log(Level.WARNING, "could not update the index at shutdown", e);
      }
    }
    if (journal != null && !thread.isAlive()) {
      try {
        journal.close(); // what it holds, if anything, is for the next start
      } catch (IOException e) {
        LOG.log(Level.WARNING, "could not close the ledger journal", e);
      }
    }
  }
}
