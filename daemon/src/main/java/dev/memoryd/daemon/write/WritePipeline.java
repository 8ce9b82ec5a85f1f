package dev.memoryd.daemon.write;

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

import dev.memoryd.daemon.ErrorReason;
import dev.memoryd.daemon.Failure;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.grammar.CreateEntity;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpParse;
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
  static final String TRAILER_HEAD = "Memoryd-Ledger-Head";
  static final String TRAILER_EVENT = "Memoryd-Event";

  private final Grammar grammar;
  private final FileStore files;
  private final GitStore git;
  private final Chain chain;
  private final SectionHasher hasher;
  private final IdGenerator ids;
  private final Clock clock;
  private final BranchName branch;
  private final int maxBatch;
  private final PhaseStats stats = new PhaseStats();
  private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final Map<String, WriteOutcome> idempotent = new ConcurrentHashMap<>();
  private final Map<String, ObjectId> indexBacklog = new LinkedHashMap<>();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile boolean accepting = true;
  private volatile Throwable broken;

  /** Where the writer reads current file text and writes new text (the working tree). */
  public interface FileStore {
    Optional<String> read(RepoPath p) throws IOException;

    void writeAll(Map<String, byte[]> files) throws IOException;

    /** Writes and fsyncs temp files; the returned action renames them into place. */
    IoAction stage(Map<String, byte[]> files) throws IOException;

    java.nio.file.Path root();
  }

  private record Pending(WriteRequest req, CompletableFuture<WriteOutcome> future) {}

  /** An I/O step that may fail. */
  public interface IoAction {
    void run() throws IOException;
  }

  /** Poison pill: interrupting the writer could close its file channels mid-write. */
  private static final Pending STOP = new Pending(null, null);
  private static final long INDEX_DELAY_MS = 50;
  private static final int COMPACT_EVERY = Integer.getInteger("memoryd.compactEvery", 16);
  private int batchesSinceCompaction;
  private Future<?> compaction;
  private final ExecutorService io = Executors.newSingleThreadExecutor(r -> daemon(r, "memoryd-durable"));
  private final ExecutorService stager = Executors.newSingleThreadExecutor(r -> daemon(r, "memoryd-stage"));
  private final ExecutorService compactor = Executors.newSingleThreadExecutor(r -> daemon(r, "memoryd-compact"));

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private record Accepted(Pending p, List<Mutation.EventSpec> specs, Map<RepoPath, String> contents,
      List<EventDraft> drafts) {}

  /** A mutation that must act on the chain right after its own lines are appended. */
  public interface ChainHook {
    void afterAppend(Chain chain);
  }

  /** Rebuilds an extension's mutation from its events, for recovery. Keyed by event op. */
  public interface Replayer {
    Mutation fromEvents(List<Event> events);
  }

  private final Map<String, Replayer> replayers = new ConcurrentHashMap<>();
  private final List<java.util.function.Consumer<List<Event>>> listeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /** Registers how to redo events whose op is {@code op} (extensions; grammar ops are built in). */
  public void registerReplayer(String op, Replayer r) {
    replayers.put(op, r);
  }

  /**
   * Called on the writer thread with every batch's events, in ledger order, once they are
   * published; also with the events a recovery rolled forward. Must be quick and not write.
   */
  public void addListener(java.util.function.Consumer<List<Event>> l) {
    listeners.add(l);
  }

  public WritePipeline(Grammar grammar, FileStore files, GitStore git, Chain chain,
      SectionHasher hasher, IdGenerator ids, Clock clock, BranchName branch, int maxBatch) {
    this.grammar = grammar;
    this.files = files;
    this.git = git;
    this.chain = chain;
    this.hasher = hasher;
    this.ids = ids;
    this.clock = clock;
    this.branch = branch;
    this.maxBatch = maxBatch;
    this.thread = new Thread(this::loop, "memoryd-writer-" + branch.value());
    this.thread.setDaemon(true);
  }

  public PhaseStats stats() {
    return stats;
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
    git.syncIndexToHead(files.root());
  }


  private static WriteOutcome.EventRef ref(Event e) {
    return new WriteOutcome.EventRef(e.eventId(),
        EvidenceToken.of(Instant.parse(e.ts()), new EventId(e.eventId())).value(), e.afterHash(),
        e.filePath(), e.sectionAnchor());
  }

  /** The ledger seq the branch head (or its nearest memoryd ancestor) says is published. */
  private long publishedSeq() throws IOException {
    return publishedHead(git).map(dev.memoryd.ledger.Head::seq).orElse(0L);
  }

  /** The ledger head recorded in the trailer of the branch's latest memoryd commit, if any. */
  public static Optional<dev.memoryd.ledger.Head> publishedHead(GitStore git) throws IOException {
    ObjectId c = git.head();
    try (org.eclipse.jgit.revwalk.RevWalk rw =
        new org.eclipse.jgit.revwalk.RevWalk(git.repository())) {
      while (c != null) {
        org.eclipse.jgit.revwalk.RevCommit rc = rw.parseCommit(c);
        for (Map.Entry<String, String> t : GitStore.parseTrailers(rc.getFullMessage())) {
          if (t.getKey().equals(TRAILER_HEAD)) {
            String v = t.getValue();
            int colon = v.indexOf(':');
            return Optional.of(new dev.memoryd.ledger.Head(Long.parseLong(v.substring(0, colon)),
                v.substring(colon + 1)));
          }
        }
        c = rc.getParentCount() == 0 ? null : rc.getParent(0);
      }
    }
    return Optional.empty();
  }

  private void rollForward(long published) throws IOException {
    List<List<Event>> groups = new ArrayList<>();
    Iterator<Event> it = chain.read(published + 1);
    String current = null;
    while (it.hasNext()) {
      Event e = it.next();
      String decl = e.payload().path("decl").path("id").asText(null);
      if (groups.isEmpty() || decl == null || !decl.equals(current)) {
        groups.add(new ArrayList<>());
        current = decl;
      }
      groups.get(groups.size() - 1).add(e);
    }
    // A kill while a batch's lines were being written can leave the last declaration with only
    // some of its events (the torn line itself is dropped by Ledger.open). It was never
    // acknowledged; redoing part of it would half-apply it, so its lines are dropped too.
    if (!groups.isEmpty()) {
      List<Event> last = groups.get(groups.size() - 1);
      int count = last.get(0).payload().path("decl").path("count").asInt(last.size());
      if (last.size() < count) {
        chain.truncateAfter(last.get(0).seq() - 1);
        groups.remove(groups.size() - 1);
        LOG.warning("recovery dropped ledger lines " + last.get(0).seq() + ".." + last.get(last.size() - 1).seq()
            + ": an unacknowledged declaration of " + count + " events was cut off after " + last.size());
      }
    }
    if (groups.isEmpty()) {
      return;
    }
    ObjectId head = git.head();
    Map<RepoPath, String> overlay = new HashMap<>();
    Map<RepoPath, String> atHead = new HashMap<>();
    FileSource src = p -> {
      if (overlay.containsKey(p)) {
        return Optional.of(overlay.get(p));
      }
      try {
        Optional<String> s = git.read(head, p.value()).map(b -> new String(b, StandardCharsets.UTF_8));
        s.ifPresent(v -> atHead.put(p, v));
        return s;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    try (GitStore.Batch batch = git.batch()) {
      for (List<Event> g : groups) {
        Mutation m = replayMutation(g);
        Instant now = Instant.parse(g.get(0).ts());
        Mutation.Result r = m.apply(src, now);
        if (!(r instanceof Mutation.Done a)) {
          throw new IllegalStateException("ledger lines " + g.get(0).seq() + ".." + g.get(g.size() - 1).seq()
              + " cannot be replayed onto the branch head: " + r);
        }
        overlay.putAll(a.newContents());
        Map<String, byte[]> commitFiles = new LinkedHashMap<>();
        a.newContents().forEach((p, t) -> commitFiles.put(p.value(), t.getBytes(StandardCharsets.UTF_8)));
        commitFiles.putAll(segmentsThrough(g.get(g.size() - 1).seq(), published));
        Event last = g.get(g.size() - 1);
        batch.commit(commitFiles, author(g.get(0).actor(), now), committer(now),
            message(summaries(a.events()), g.get(0).rationale(), g.get(0).actor(),
                g.stream().map(Event::eventId).toList(), last.seq(), last.integrity().lineHash()));
      }
      Map<String, byte[]> toWrite = new LinkedHashMap<>();
      for (Map.Entry<RepoPath, String> e : overlay.entrySet()) {
        Optional<String> onDisk = files.read(e.getKey());
        String before = atHead.get(e.getKey());
        // Only our own (possibly half-done) write may be replaced; anything else is a human's.
        if (onDisk.isEmpty() || onDisk.get().equals(before) || onDisk.get().equals(e.getValue())) {
          toWrite.put(e.getKey().value(), e.getValue().getBytes(StandardCharsets.UTF_8));
        } else {
          LOG.warning("recovery left " + e.getKey().value()
              + " as found: it holds edits that are neither the branch head's nor memoryd's");
        }
      }
      files.writeAll(toWrite);
      batch.publish();
      indexBacklog.putAll(batch.written());
    }
    for (List<Event> g : groups) {
      notifyListeners(g);
    }
    LOG.info("recovery rolled " + groups.size() + " unpublished declaration(s) forward");
  }

  private Mutation replayMutation(List<Event> g) {
    if (g.get(0).payload().path("op").isObject()) {
      List<Op> ops = new ArrayList<>();
      for (Event e : g) {
        OpParse parsed = OpCodec.parse(e.payload().get("op"));
        if (!(parsed instanceof OpParse.Ok ok)) {
          throw new IllegalStateException("ledger line " + e.seq() + " holds an op replay cannot parse");
        }
        ops.add(ok.op());
      }
      return new GrammarMutation(grammar, ops, hasher);
    }
    Replayer r = replayers.get(g.get(0).op());
    if (r == null) {
      throw new IllegalStateException("ledger line " + g.get(0).seq() + " has op '" + g.get(0).op()
          + "' that this daemon cannot replay");
    }
    return r.fromEvents(g);
  }

  private void notifyListeners(List<Event> events) {
    for (java.util.function.Consumer<List<Event>> l : listeners) {
      l.accept(events);
    }
  }

  /** Bytes of each ledger segment holding lines (published, seq], cut at line {@code seq}. */
  private Map<String, byte[]> segmentsThrough(long seq, long published) throws IOException {
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (long s = published + 1; s <= seq; s++) {
      String path = chain.segmentPath(s);
      if (!out.containsKey(path)) {
        out.put(path, null);
      }
    }
    for (String path : new ArrayList<>(out.keySet())) {
      byte[] all = java.nio.file.Files.readAllBytes(files.root().resolve(path));
      long firstSeq = chain.firstSeqOf(path);
      long keep = seq - firstSeq + 1;
      int end = 0;
      for (long n = 0; n < keep && end < all.length; end++) {
        if (all[end] == '\n') {
          n++;
        }
      }
      out.put(path, java.util.Arrays.copyOf(all, end));
    }
    return out;
  }

  public void start() {
    thread.start();
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
        batch.add(first);
        queue.drainTo(batch, maxBatch - 1);
        boolean stop = batch.remove(STOP);
        process(batch);
        if (stop) {
          running = false;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (IOException | RuntimeException | Error e) {
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
      if (p != STOP) {
        p.future.completeExceptionally(cause);
      }
    }
  }

  private void process(List<Pending> batch) throws IOException {
    long t0 = System.nanoTime();
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    Map<RepoPath, String> overlay = new HashMap<>();
    FileSource src = p -> {
      if (overlay.containsKey(p)) {
        return Optional.of(overlay.get(p));
      }
      try {
        return files.read(p);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    List<Accepted> accepted = new ArrayList<>();
    Map<String, Pending> keysInBatch = new HashMap<>();
    for (Pending p : batch) {
      WriteRequest req = p.req;
      if (req.idempotencyKey() != null) {
        WriteOutcome prior = idempotent.get(req.idempotencyKey());
        if (prior != null) {
          p.future.complete(prior);
          continue;
        }
        Pending twin = keysInBatch.putIfAbsent(req.idempotencyKey(), p);
        if (twin != null) {
          twin.future.thenAccept(p.future::complete);
          continue;
        }
      }
      Mutation m = req.mutation() != null ? req.mutation()
          : new GrammarMutation(grammar, withSliceIds(req.ops()), hasher);
      Mutation.Result r;
      try {
        r = m.apply(src, now);
      } catch (UncheckedIOException e) {
        throw e.getCause();
      } catch (SecurityException e) {
        p.future.complete(new WriteOutcome.Rejected(-1,
            Failure.of(ErrorReason.INVALID_REQUEST, e.getMessage())));
        continue;
      }
      if (r instanceof Mutation.Refused rej) {
        p.future.complete(new WriteOutcome.Rejected(rej.opIndex(), rej.failure()));
        continue;
      }
      Mutation.Done a = (Mutation.Done) r;
      if (!a.changed() || a.events().isEmpty()) {
        p.future.complete(new WriteOutcome.Unchanged(git.head() == null ? null : git.head().name()));
        continue;
      }
      overlay.putAll(a.newContents());
      accepted.add(new Accepted(p, a.events(), a.newContents(), drafts(req, a.events(), now)));
    }
    stats.add(PhaseStats.Phase.APPLY, System.nanoTime() - t0);
    if (accepted.isEmpty()) {
      return;
    }

    long t1 = System.nanoTime();
    List<List<Event>> events = new ArrayList<>();
    List<Map<String, byte[]>> segments = new ArrayList<>();
    for (Accepted a : accepted) {
      events.add(chain.append(a.drafts));
      segments.add(chain.dirtySegments());
      if (a.p.req.mutation() instanceof ChainHook hook) {
        hook.afterAppend(chain); // e.g. a key rotation: lines after this one use the new key
      }
    }
    long t2 = System.nanoTime();
    stats.add(PhaseStats.Phase.LEDGER_APPEND, t2 - t1);
    Map<String, byte[]> finalFiles = new LinkedHashMap<>();
    overlay.forEach((p, t) -> finalFiles.put(p.value(), t.getBytes(StandardCharsets.UTF_8)));
    // Objects stay invisible until the ref moves, and temp files until they are renamed, so
    // both are written while the ledger is made durable; the renames wait for the ledger, and
    // the ref moves last.
    Future<?> durable = io.submit(() -> {
      long s0 = System.nanoTime();
      chain.sync();
      stats.add(PhaseStats.Phase.LEDGER_FSYNC, System.nanoTime() - s0);
      return null;
    });
    Future<IoAction> staged = stager.submit(() -> {
      long s0 = System.nanoTime();
      IoAction a = files.stage(finalFiles);
      stats.add(PhaseStats.Phase.FILES, System.nanoTime() - s0);
      return a;
    });
    List<ObjectId> commits = new ArrayList<>();
    try (GitStore.Batch gb = git.batch()) {
      try {
        for (int i = 0; i < accepted.size(); i++) {
          Accepted a = accepted.get(i);
          List<Event> ev = events.get(i);
          Event last = ev.get(ev.size() - 1);
          Map<String, byte[]> commitFiles = new LinkedHashMap<>();
          a.contents.forEach((p, t) -> commitFiles.put(p.value(), t.getBytes(StandardCharsets.UTF_8)));
          commitFiles.putAll(segments.get(i));
          commits.add(gb.commit(commitFiles, author(a.p.req.actor(), now), committer(now),
              message(summaries(a.specs), a.p.req.rationale(), a.p.req.actor(),
                  ev.stream().map(Event::eventId).toList(), last.seq(), last.integrity().lineHash())));
        }
        long t5 = System.nanoTime();
        stats.add(PhaseStats.Phase.GIT_COMMIT, t5 - t2);
        gb.flush();
        stats.add(PhaseStats.Phase.GIT_FLUSH, System.nanoTime() - t5);
      } catch (IOException | RuntimeException e) {
        // Never leave the I/O threads running past a failed batch.
        awaitQuietly(durable);
        awaitQuietly(staged);
        throw e;
      }
      long w = System.nanoTime();
      awaitDurable(durable);
      IoAction rename = awaitDurable(staged);
      stats.add(PhaseStats.Phase.WAIT_DURABLE, System.nanoTime() - w);
      long r0 = System.nanoTime();
      rename.run(); // only now: the ledger holds every line these files reflect
      stats.add(PhaseStats.Phase.FILES_RENAME, System.nanoTime() - r0);
      long t6 = System.nanoTime();
      gb.moveRef();
      stats.add(PhaseStats.Phase.GIT_REF, System.nanoTime() - t6);
      indexBacklog.putAll(gb.written());
    }
    stats.batch(accepted.size());
    // Listeners see the batch before any client hears of it, so a reply never outruns them.
    for (List<Event> ev : events) {
      notifyListeners(ev);
    }
    for (int i = 0; i < accepted.size(); i++) {
      Accepted a = accepted.get(i);
      WriteOutcome out = new WriteOutcome.Committed(commits.get(i).name(),
          events.get(i).stream().map(WritePipeline::ref).toList(), false);
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
      EntityRef ent = o.path() == null ? new EntityRef(null, null, null) : EntityRef.of(o.path());
      out.add(new EventDraft(eventId, now.toString(), branch.value(), req.actor(), ent.userId(),
          ent.entityType(), ent.entityId(), o.path() == null ? null : o.path().value(), o.op(),
          o.sectionAnchor(), o.beforeHash(), o.afterHash(), payload, req.rationale(),
          o.evidenceRefs() == null ? List.of() : o.evidenceRefs(), req.idempotencyKey(),
          req.toolCallId()));
    }
    return out;
  }

  private static void awaitQuietly(Future<?> f) {
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      LOG.log(Level.FINE, "I/O of a failed batch also failed", e.getCause());
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

  private static List<String> summaries(List<Mutation.EventSpec> specs) {
    return specs.stream().map(Mutation.EventSpec::summary).distinct().toList();
  }

  static String message(List<String> summaries, String rationale, String actor,
      List<String> eventIds, long headSeq, String headHash) {
    String subject = "memoryd: " + String.join("; ", summaries);
    if (subject.length() > 72) {
      subject = subject.substring(0, 69) + "...";
    }
    StringBuilder sb = new StringBuilder(subject).append("\n\n");
    if (rationale != null && !rationale.isBlank()) {
      sb.append(rationale.strip()).append("\n\n");
    }
    sb.append("Memoryd-Actor: ").append(actor).append('\n');
    for (String id : eventIds) {
      sb.append(TRAILER_EVENT).append(": ").append(id).append('\n');
    }
    sb.append(TRAILER_HEAD).append(": ").append(headSeq).append(':').append(headHash).append('\n');
    return sb.toString();
  }

  private static PersonIdent author(String actor, Instant now) {
    String safe = actor.replaceAll("[^A-Za-z0-9._-]", "-");
    return new PersonIdent(actor, safe + "@agents.memoryd", now, java.time.ZoneOffset.UTC);
  }

  private static PersonIdent committer(Instant now) {
    return new PersonIdent("memoryd", "memoryd@localhost", now, java.time.ZoneOffset.UTC);
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
    io.shutdown();
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
  }
}
