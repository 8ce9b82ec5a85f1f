package dev.memoryd.daemon.branch;

import dev.memoryd.daemon.git.CommitFormat;
import dev.memoryd.daemon.git.LedgerTrailers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.util.concurrent.ExecutionException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.git.CommitBatch;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.substrate.ChunkStore;
import dev.memoryd.daemon.substrate.MergeCheck;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.Replayer;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.EventDraft;
import dev.memoryd.ledger.Head;
import dev.memoryd.ledger.IdGenerator;
import dev.memoryd.ledger.Ledger;

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
 */
public final class Branches implements AutoCloseable {
  public static final String OP_FORK = "branch_fork";
  public static final String OP_MERGE = MergeMutation.OP;
  public static final String OP_DELETE = "branch_delete";
  /** Where a deleted branch's ref goes: history stays reachable, {@code git branch} no longer lists it. */
  public static final String DELETED_PREFIX = "refs/memoryd/deleted/";

  private final Path root;
  private final Grammar grammar;
  private final Ledger ledger;
  private final GitStore git;
  private final WritePipeline checkedOut;
  private final SectionHasher hasher;
  private final IdGenerator ids;
  private final Clock clock;
  private final int maxBatch;
  private final ChunkStore chunks; // the checked-out branch's: merges into it are checked against its writer's graph
  private final String replica; // null: the root that made the repository, whose chains are named like their branches
  private final Map<BranchName, WritePipeline> writers = new HashMap<>();
  private final java.util.Set<BranchName> deleting = new java.util.HashSet<>();

  /** {@code chunks} is the substrate of the checked-out branch, served by {@code checkedOut}. */
  public Branches(Path root, Grammar grammar, Ledger ledger, GitStore git, WritePipeline checkedOut,
      ChunkStore chunks, SectionHasher hasher, IdGenerator ids, Clock clock, int maxBatch) {
    this.chunks = chunks;
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
  public static void registerReplayers(WritePipeline w) {
    Replayer none = evs -> (src, now) -> new Mutation.Done(Map.of(), List.of(), true);
    w.registerReplayer(OP_FORK, none);
    w.registerReplayer(OP_DELETE, none);
    w.registerReplayer(OP_MERGE, MergeMutation::replay);
  }

  /** The chain this root writes for branch {@code b}: {@code b}, or {@code b@<replica>} on a replica. */
  public BranchName chainOf(BranchName b) {
    return b.onReplica(replica);
  }

  /** Whether {@code chain} is one this root writes (the others are replicas', brought by sync). */
  public boolean ours(BranchName chain) {
    return chain.replica().equals(Optional.ofNullable(replica));
  }

  /** This root's replica id; null on the root that made the repository. */
  public String replica() {
    return replica;
  }

  /** The checked-out branch's name. */
  public String checkedOutName() {
    return checkedOut.branch().value();
  }

  /**
   * Finishes what a crash cut short: a fork line with no branch gets its commit and ref, a
   * branch whose chain ends in its deletion has its ref retired, and a branch whose chain runs
   * past its head has its writer started now (its recovery rolls the tail forward).
   */
  public synchronized void load() throws IOException {
    for (BranchName cn : ledger.branches()) {
      BranchName b = cn.gitBranch();
      if (!ours(cn) || b.equals(checkedOut.branch())) {
        continue;
      }
      Chain c = ledger.chain(cn);
      if (c.head().seq() == 0) {
        continue;
      }
      Event last = lastEvent(c);
      Optional<ObjectId> ref = git.branchHead(b.value());
      if (OP_DELETE.equals(last.op())) {
        if (ref.isPresent()) {
          git.retireRef(Constants.R_HEADS + b.value(), DELETED_PREFIX + b.value(), ref.get());
        }
      } else if (ref.isEmpty() && OP_FORK.equals(last.op())) {
        ObjectId from = ObjectId.fromString(last.payload().path("fork").path("from_commit").asText());
        Map<String, byte[]> seg = new LinkedHashMap<>();
        String segPath = c.segmentPath(last.seq());
        seg.put(segPath, Files.readAllBytes(root.resolve(segPath)));
        forkCommit(b, from, seg, last);
      } else if (ref.isPresent()) {
        Optional<Head> published = LedgerTrailers.publishedHeadAt(git, ref.get(), cn);
        if (published.map(Head::seq).orElse(0L) < c.head().seq()) {
          writerOf(b);
        }
      }
    }
  }

  private static Event lastEvent(Chain c) {
    Iterator<Event> it = c.read(c.head().seq());
    return it.next();
  }

  /** The writer of a branch: the daemon's for the checked-out one, else one made on first use. */
  public synchronized Outcome<WritePipeline> writer(String name) throws IOException {
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
      return Outcome.fail(ErrorReason.NOT_FOUND, "no branch '" + name + "' (see branch.list; branch.create makes one)");
    }
    if (ledger.chain(chainOf(b)).head().seq() == 0) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "branch '" + name + "' has no ledger chain (it was not made"
          + " with branch.create or brought by sync; proposal branches change through proposals.accept)");
    }
    return Outcome.ok(writerOf(b));
  }

  private WritePipeline writerOf(BranchName b) throws IOException {
    WritePipeline w = writers.get(b);
    if (w == null) {
      GitStore g = git.onBranch(b.value());
      w = new WritePipeline(grammar, new GitTreeStore(g, root), g, ledger.chain(chainOf(b)), hasher, ids, clock, b, maxBatch);
      registerReplayers(w);
      w.setChains(x -> ledger.branches().contains(x) ? Optional.of(ledger.chain(x)) : Optional.empty());
      w.recover();
      w.start();
      writers.put(b, w);
    }
    return w;
  }

  /** Whether {@code name} is a local branch (the checked-out one included). */
  public boolean exists(String name) throws IOException {
    return name.equals(checkedOutName()) || git.branchHead(name).isPresent();
  }

  /** The head commit of a local branch. */
  public Optional<ObjectId> head(String name) throws IOException {
    return git.branchHead(name);
  }

  /** One row of {@code branch.list}. */
  public record Info(String name, String head, boolean checkedOut, long chainLines) {}

  /** Every local branch, sorted by name, with its head and its chain's line count. */
  public List<Info> list() throws IOException {
    List<Info> out = new ArrayList<>();
    java.util.Set<BranchName> chains = ledger.branches();
    for (Map.Entry<String, ObjectId> e : git.branches().entrySet()) {
      long lines = 0;
      BranchName b = safeName(e.getKey());
      if (b != null && b.replica().isEmpty() && chains.contains(chainOf(b))) {
        lines = ledger.chain(chainOf(b)).head().seq();
      }
      out.add(new Info(e.getKey(), e.getValue().name(), e.getKey().equals(checkedOutName()), lines));
    }
    return out;
  }

  private static BranchName safeName(String s) {
    try {
      return new BranchName(s);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * {@code branch.create}: a new branch at {@code from} (a branch, default the checked-out one, or
   * any commit), whose chain starts with a {@code branch_fork} line linked to the line the
   * from-commit records, and whose first commit (on top of the from-commit) holds that line.
   */
  public synchronized Outcome<ObjectNode> create(String name, String from, String actor) throws IOException {
    BranchName b;
    try {
      b = new BranchName(name);
    } catch (IllegalArgumentException e) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
    }
    if (name.contains("@")) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "branch names may not contain '@': ledger chains of"
          + " replicas are named <branch>@<replica>");
    }
    if (git.branchHead(name).isPresent()) {
      return Outcome.fail(new Failure(ErrorReason.CONFLICT, "branch '" + name + "' already exists", Map.of("branch", name)));
    }
    if (ledger.branches().contains(chainOf(b)) && ledger.chain(chainOf(b)).head().seq() > 0) {
      return Outcome.fail(new Failure(ErrorReason.CONFLICT, "the name '" + name + "' belongs to a deleted branch"
          + " whose ledger chain stays; choose another name", Map.of("branch", name)));
    }
    if (name.startsWith("proposals/")) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "branch names under proposals/ are the proposals' own");
    }
    java.util.Set<String> taken = new java.util.TreeSet<>(git.branches().keySet());
    ledger.branches().forEach(x -> taken.add(x.gitBranch().value()));
    for (String other : taken) {
      // Git cannot hold refs/heads/a beside refs/heads/a/b, and ledger/a/ would hold ledger/a/b/.
      // Checked before the fork line is written: a line whose ref cannot be made would be redone at every start.
      if (other.startsWith(name + "/") || name.startsWith(other + "/")) {
        return Outcome.fail(ErrorReason.INVALID_REQUEST, "branch '" + name + "' would nest with branch '"
            + other + "' (one cannot be a path prefix of the other)");
      }
    }
    String fromSpec = from == null ? checkedOutName() : from;
    if (!fromSpec.matches("[0-9a-fA-F]{4,40}")) { // not a commit: a branch name, under the branch-name rule
      try {
        new BranchName(fromSpec);
      } catch (IllegalArgumentException e) {
        return Outcome.fail(ErrorReason.INVALID_REQUEST, "from: " + e.getMessage());
      }
    }
    Optional<ObjectId> fromCommit = git.branchHead(fromSpec);
    if (fromCommit.isEmpty()) {
      fromCommit = fromSpec.matches("[0-9a-fA-F]{4,40}") ? git.resolve(fromSpec) : Optional.empty();
    }
    if (fromCommit.isEmpty()) {
      return Outcome.fail(ErrorReason.NOT_FOUND, "no branch or commit '" + fromSpec + "'");
    }
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    ObjectNode payload = JsonNodeFactory.instance.objectNode();
    putLink(payload, fromCommit.get());
    payload.putObject("fork").put("from", fromSpec).put("from_commit", fromCommit.get().name());
    String eventId = ids.next().value();
    payload.putObject("decl").put("id", eventId).put("index", 0).put("count", 1);
    Chain c = ledger.chain(chainOf(b));
    List<Event> ev = c.append(List.of(new EventDraft(eventId, now.toString(), b.value(), actorOr(actor), null, null,
        null, null, OP_FORK, null, null, null, payload, "branch " + name + " from " + fromSpec, List.of(), null, null)));
    c.sync(); // the write-ahead log first: load() finishes a fork whose commit never came
    Event fork = ev.get(0);
    ObjectId commit = forkCommit(b, fromCommit.get(), c.dirtySegments(), fork);
    ObjectNode r = JsonNodeFactory.instance.objectNode();
    r.put("name", name).put("head", commit.name()).put("from", fromSpec).put("from_commit", fromCommit.get().name())
        .put("event_id", eventId);
    r.set("link", payload.get("link"));
    return Outcome.ok(r);
  }

  private ObjectId forkCommit(BranchName b, ObjectId from, Map<String, byte[]> segments, Event fork) throws IOException {
    Instant now = Instant.parse(fork.ts());
    ObjectId commit = git.commitOnNewBranch(b.value(), from, segments, CommitFormat.author(fork.actor(), now),
        CommitFormat.committer(now), CommitFormat.message(List.of("branch " + b.value() + " from "
            + fork.payload().path("fork").path("from").asText()), fork.rationale(), fork.actor(),
            List.of(fork.eventId()), fork.seq(), fork.integrity().lineHash(),
            replica == null ? null : chainOf(b).value()));
    excludeChain(chainOf(b));
    return commit;
  }

  /**
   * The chains of branches other than the checked-out one live under {@code ledger/} on disk but
   * are committed only on their own branches: keep them out of the checked-out branch's
   * {@code git status} (the repository's local exclude file, never {@code .gitignore}).
   */
  public void excludeChain(BranchName b) throws IOException {
    Path exclude = git.repository().getDirectory().toPath().resolve("info/exclude");
    String line = "/ledger/" + b.value() + "/";
    String now = Files.exists(exclude) ? Files.readString(exclude, StandardCharsets.UTF_8) : "";
    if (!now.lines().anyMatch(line::equals)) {
      Files.createDirectories(exclude.getParent());
      Files.writeString(exclude, now + (now.isEmpty() || now.endsWith("\n") ? "" : "\n") + line + "\n",
          StandardCharsets.UTF_8);
    }
  }

  /** {@code payload.link}: the chain line {@code commit} records as its ledger head, when there is one. */
  private void putLink(ObjectNode payload, ObjectId commit) throws IOException {
    Optional<Head> h = LedgerTrailers.publishedHeadAt(git, commit, null);
    if (h.isEmpty()) {
      return;
    }
    Optional<BranchName> holder = chainHolding(h.get());
    if (holder.isPresent()) {
      payload.putObject("link").put("branch", holder.get().value()).put("seq", h.get().seq())
          .put("line_hash", h.get().lineHash());
    }
  }

  /** The chain whose line at {@code h.seq} has {@code h.lineHash} (commit trailers do not name their chain). */
  private Optional<BranchName> chainHolding(Head h) {
    for (BranchName b : ledger.branches()) {
      Chain c = ledger.chain(b);
      if (c.head().seq() >= h.seq()) {
        Iterator<Event> it = c.read(h.seq());
        if (it.hasNext() && it.next().integrity().lineHash().equals(h.lineHash())) {
          return Optional.of(b);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * {@code branch.delete}: records {@code branch_delete} on the branch's chain (its last line and
   * commit), stops its writer, then retires its ref to {@code refs/memoryd/deleted/<name>}. The
   * commits and the chain stay.
   */
  public Outcome<ObjectNode> delete(String name, String actor) throws IOException {
    return delete(name, actor, null);
  }

  /**
   * {@link #delete(String, String)}, only if the branch holds no work beyond {@code retired} (another
   * root's retired head of it, see {@link GitStore#workBeyond}) when its deletion's turn on the
   * writer comes; otherwise {@code conflict} and nothing recorded. {@code retired} null: no
   * condition. Payload {@code retired_elsewhere} names that commit.
   */
  public Outcome<ObjectNode> delete(String name, String actor, ObjectId retired) throws IOException {
    WritePipeline w;
    BranchName b;
    synchronized (this) {
      if (name.equals(checkedOutName())) {
        return Outcome.fail(ErrorReason.INVALID_REQUEST, "branch '" + name + "' is checked out; it cannot be deleted");
      }
      Outcome<WritePipeline> o = writer(name);
      if (o instanceof Outcome.Failed<WritePipeline> f) {
        return Outcome.fail(f.failure());
      }
      w = ((Outcome.Ok<WritePipeline>) o).value();
      b = w.branch();
      deleting.add(b); // no new writes from here on
    }
    ObjectNode payload = JsonNodeFactory.instance.objectNode().put("retired_ref", DELETED_PREFIX + name);
    if (retired != null) {
      payload.put("retired_elsewhere", retired.name());
    }
    GitStore bg = w.git();
    Mutation del = (src, now) -> {
      if (retired != null) {
        // Checked on the writer, after every write queued before: one that came in since the caller looked stays.
        List<ObjectId> work;
        try {
          work = bg.workBeyond(retired, bg.head(), 5);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
        if (!work.isEmpty()) {
          return new Mutation.Refused(0, new Failure(ErrorReason.CONFLICT, "branch '" + name + "' has work "
              + retired.name() + " does not hold (" + GitStore.shortIds(work) + "); not deleted", Map.of("branch", name)));
        }
      }
      return new Mutation.Done(Map.of(), List.of(new Mutation.EventSpec(OP_DELETE, null, null, null, null, payload,
          List.of(), "deleted branch " + name)), true);
    };
    WriteOutcome out = await(w.submit(WriteRequest.of(del, "delete branch " + name, actorOr(actor))));
    if (!(out instanceof WriteOutcome.Committed c)) {
      synchronized (this) {
        deleting.remove(b);
      }
      if (out instanceof WriteOutcome.Rejected r && r.failure().reason() == ErrorReason.CONFLICT) {
        return Outcome.fail(r.failure());
      }
      return Outcome.fail(ErrorReason.INTERNAL, "the deletion was not recorded: " + out);
    }
    synchronized (this) {
      writers.remove(b);
      w.close();
      w.git().close();
      ObjectId tip = ObjectId.fromString(c.commit());
      git.retireRef(Constants.R_HEADS + name, DELETED_PREFIX + name, tip);
      deleting.remove(b);
      ObjectNode r = JsonNodeFactory.instance.objectNode();
      r.put("name", name).put("head", tip.name()).put("retired_ref", DELETED_PREFIX + name)
          .put("event_id", c.events().get(0).eventId()).put("chain_lines", ledger.chain(b).head().seq());
      return Outcome.ok(r);
    }
  }

  /**
   * {@code branch.merge}: merges {@code from} into {@code into} (default the checked-out branch) on
   * {@code into}'s writer. The result is {@code {commit}} (a commit with two parents), {@code
   * {commit, changed: false}} when {@code from} is already merged, or {@code {conflicts}} with
   * nothing recorded. A merge whose chunk files would break a spec rule fails with
   * {@code spec_violation} (as a {@code declare} would), nothing recorded.
   */
  public Outcome<ObjectNode> merge(String from, String into, JsonNode resolutions, String actor) throws IOException {
    String target = into == null ? checkedOutName() : into;
    try {
      new BranchName(from);
      new BranchName(target);
    } catch (IllegalArgumentException e) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
    }
    if (from.equals(target)) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "cannot merge branch '" + from + "' into itself");
    }
    List<MergeMutation.Resolution> rs;
    try {
      rs = MergeMutation.parse(resolutions);
    } catch (IllegalArgumentException e) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
    }
    Optional<ObjectId> fromHead = safeName(from) == null ? Optional.empty() : git.branchHead(from);
    if (fromHead.isEmpty()) {
      return Outcome.fail(ErrorReason.NOT_FOUND, "no branch '" + from + "' to merge from");
    }
    Outcome<WritePipeline> o = writer(target);
    if (o instanceof Outcome.Failed<WritePipeline> f) {
      return Outcome.fail(f.failure());
    }
    WritePipeline w = ((Outcome.Ok<WritePipeline>) o).value();
    Optional<Head> h = LedgerTrailers.publishedHeadAt(git, fromHead.get(), null);
    Optional<BranchName> holder = h.isEmpty() ? Optional.empty() : chainHolding(h.get());
    MergeMutation m = new MergeMutation(w.git(), grammar, hasher, from, fromHead.get(),
        holder.map(BranchName::value).orElse(null), h.orElse(null), rs, chunkCheck(w));
    WriteOutcome out = await(w.submit(WriteRequest.of(m, "merge " + from + " into " + target, actorOr(actor))));
    ObjectNode r = JsonNodeFactory.instance.objectNode();
    if (out instanceof WriteOutcome.Committed c) {
      r.put("commit", c.commit()).put("changed", true).put("event_id", c.events().get(0).eventId());
      return Outcome.ok(r);
    }
    if (out instanceof WriteOutcome.Unchanged u) {
      r.put("commit", u.commit()).put("changed", false)
          .put("message", "branch '" + from + "' is already merged into '" + target + "'; nothing recorded");
      return Outcome.ok(r);
    }
    Failure f = ((WriteOutcome.Rejected) out).failure();
    if (putConflicts(f, r)) {
      r.put("message", f.message());
      return Outcome.ok(r);
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
  public Outcome<ObjectNode> syncMerge(String name, ObjectId theirs, String from, JsonNode resolutions, String actor)
      throws IOException {
    List<MergeMutation.Resolution> rs;
    try {
      rs = MergeMutation.parse(resolutions);
    } catch (IllegalArgumentException e) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
    }
    ObjectNode r = JsonNodeFactory.instance.objectNode();
    r.put("branch", name);
    BranchName bn = safeName(name);
    if (bn != null && !name.equals(checkedOutName()) && ledger.chain(chainOf(bn)).head().seq() == 0) {
      return Outcome.ok(r.put("outcome", "skipped").put("message", "the local branch has no chain of this root"
          + " (made with git, or a proposal branch): not merged"));
    }
    Outcome<WritePipeline> o = writer(name);
    if (o instanceof Outcome.Failed<WritePipeline> f) {
      return Outcome.fail(f.failure());
    }
    WritePipeline w = ((Outcome.Ok<WritePipeline>) o).value();
    GitStore g = w.git();
    ObjectId ours = g.refNow();
    Map<String, byte[]> chains;
    try {
      chains = foreignChains(g, ours, theirs);
    } catch (IllegalStateException e) {
      return Outcome.fail(ErrorReason.CONFLICT, e.getMessage());
    }
    if (g.isAncestor(theirs, ours)) {
      if (!rs.isEmpty()) { // nothing to merge, so nothing a resolution could match
        MergeMutation.Resolution x = rs.get(0);
        return Outcome.fail(ErrorReason.INVALID_REQUEST, "resolution " + x.path() + "#" + x.section() + "=" + x.take()
            + " matches no conflicting section: " + from + " holds nothing " + name + " lacks; nothing was merged");
      }
      if (!chains.isEmpty()) {
        r.put("commit", commitForeign(w, chains, "memoryd: sync: other replicas' ledger lines from " + from, null).name());
      }
      return Outcome.ok(r.put("outcome", chains.isEmpty() ? "up_to_date" : "chains"));
    }
    Optional<LedgerTrailers.RecordedHead> link = LedgerTrailers.ledgerHeadAt(g, theirs, name);
    Map<RepoPath, String> ledgerTexts = new LinkedHashMap<>();
    chains.forEach((p, b) -> ledgerTexts.put(RepoPath.of(p), new String(b, StandardCharsets.UTF_8)));
    MergeMutation m = new MergeMutation(g, grammar, hasher, from, theirs,
        link.map(e -> e.chain().value()).orElse(null), link.map(LedgerTrailers.RecordedHead::head).orElse(null), rs,
        chunkCheck(w), ledgerTexts, true);
    WriteOutcome out = await(w.submit(WriteRequest.of(m, "sync " + from + " into " + name, actorOr(actor))));
    if (out instanceof WriteOutcome.Committed c) {
      return Outcome.ok(r.put("outcome", "merged").put("commit", c.commit()).put("event_id", c.events().get(0).eventId()));
    }
    if (out instanceof WriteOutcome.Unchanged) {
      if (chains.isEmpty() && g.isAncestor(ours, theirs)) {
        return Outcome.ok(r.put("outcome", "up_to_date")); // theirs only adds merges of what we hold
      }
      ObjectId c = commitForeign(w, chains, "memoryd: sync: merged " + from + " (no file of " + name + " changed)", theirs);
      return Outcome.ok(r.put("outcome", "chains").put("commit", c.name()));
    }
    Failure f = ((WriteOutcome.Rejected) out).failure();
    if (putConflicts(f, r)) {
      return Outcome.ok(r.put("outcome", "conflict").put("message", f.message()));
    }
    if (f.reason() == ErrorReason.SPEC_VIOLATION) {
      // Like a conflict: this branch is left unmerged (and unpushed) until one side is changed.
      ObjectNode v = r.put("outcome", "spec_violation").put("message", f.message()).putObject("violation");
      f.details().forEach((k, x) -> v.put(k, String.valueOf(x)));
      return Outcome.ok(r);
    }
    return Outcome.fail(f);
  }

  /**
   * How a merge into {@code w}'s branch checks the chunk files it writes: against the checked-out
   * branch's writer graph (which holds its batch's declarations so far), or for another branch
   * against a graph read from its files.
   */
  private MergeMutation.ChunkCheck chunkCheck(WritePipeline w) {
    if (w == checkedOut) {
      return (files, ours, chunkFiles) -> chunks.checkMerge(chunkFiles);
    }
    return (files, ours, chunkFiles) -> MergeCheck.check(MergeCheck.graphAt(w.git(), ours, files), chunkFiles);
  }

  /** {@code ledger/<chain>/<group>/<segment>.ndjson} → the chain; null for any other path. */
  public static BranchName chainOfPath(String path) {
    java.util.regex.Matcher m = SEGMENT_PATH.matcher(path);
    if (!m.matches()) {
      return null;
    }
    try {
      return new BranchName(m.group(1));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static final java.util.regex.Pattern SEGMENT_PATH =
      java.util.regex.Pattern.compile("ledger/(.+)/\\d{4}/\\d{8}\\.ndjson");

  /**
   * Segment files of other replicas' chains where theirs' tree extends ours. Checks that this
   * root's own chains in theirs' tree are prefixes of ours (another root writing one of our
   * chains means two roots share a replica id).
   *
   * @throws IllegalStateException when a chain differs between the two trees beyond a common prefix
   */
  private Map<String, byte[]> foreignChains(GitStore g, ObjectId ours, ObjectId theirs) throws IOException {
    Map<String, byte[]> out = new java.util.TreeMap<>();
    for (String path : g.changedPaths(ours, theirs, p -> p.startsWith("ledger/"))) {
      BranchName chain = chainOfPath(path);
      if (chain == null) {
        continue;
      }
      byte[] t = g.read(theirs, path).orElse(null);
      byte[] o = g.read(ours, path).orElse(null);
      if (t == null || (o != null && startsWith(o, t))) {
        continue; // ours holds as much or more
      }
      if (ours(chain)) {
        throw new IllegalStateException("the remote holds lines of chain " + chain + " that this root did not write ("
            + path + "): two roots write the same chain; give each clone its own replica id (git config "
            + GitStore.REPLICA_KEY + "; 'memoryd clone' sets one)");
      }
      if (o != null && !startsWith(t, o)) {
        throw new IllegalStateException("chain " + chain + " differs between here and the remote beyond a common"
            + " prefix (" + path + "); run 'memoryd ledger verify' on both roots");
      }
      out.put(path, t);
    }
    return out;
  }

  private static boolean startsWith(byte[] all, byte[] prefix) {
    return all.length >= prefix.length && java.util.Arrays.equals(all, 0, prefix.length, prefix, 0, prefix.length);
  }

  /** Commits other replicas' chain files on {@code w}'s branch with no event, capturing git commits first if needed. */
  private static ObjectId commitForeign(WritePipeline w, Map<String, byte[]> files, String message, ObjectId mergeParent)
      throws IOException {
    for (int attempt = 0; attempt < 5; attempt++) {
      Optional<ObjectId> c = await(w.exclusive(() -> w.commitForeign(files, message, mergeParent)));
      if (c.isPresent()) {
        return c.get();
      }
      await(w.capture(List.of())); // commits made with git come first, as before any write
    }
    throw new IOException("the branch kept moving under the sync (commits made with git?); run sync again");
  }

  /**
   * A replica's first start: its chain of the checked-out branch is empty while the branch holds
   * history another root recorded (a commit with a ledger head). Appends (and fsyncs) a {@code branch_fork} line linked to the line
   * the head records, then commits it on the head; a crash between the two is finished by the
   * writer's recovery, which commits the line. Call before the writer is made.
   */
  public static void forkReplicaChain(GitStore git, Chain chain, IdGenerator ids, Clock clock) throws IOException {
    ObjectId head = git.head();
    if (chain.head().seq() > 0 || head == null || chain.branch().replica().isEmpty()) {
      return;
    }
    BranchName branch = chain.branch().gitBranch();
    Optional<LedgerTrailers.RecordedHead> link = LedgerTrailers.ledgerHeadAt(git, head, branch.value());
    if (link.isEmpty()) {
      return; // nothing upstream is recorded yet: this root imports the files at its start, as the first root does
    }
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    ObjectNode payload = JsonNodeFactory.instance.objectNode();
    payload.putObject("link").put("branch", link.get().chain().value()).put("seq", link.get().head().seq())
        .put("line_hash", link.get().head().lineHash());
    // recorded_commit: what the linked line recorded; commits made with git after it are captured here.
    payload.putObject("fork").put("from", branch.value()).put("from_commit", head.name())
        .put("recorded_commit", link.get().commit().name()).put("replica", chain.branch().replica().get());
    String eventId = ids.next().value();
    payload.putObject("decl").put("id", eventId).put("index", 0).put("count", 1);
    String why = "replica " + chain.branch().replica().get() + " starts its chain of " + branch.value();
    List<Event> ev = chain.append(List.of(new EventDraft(eventId, now.toString(), branch.value(), "memoryd", null, null,
        null, null, OP_FORK, null, null, null, payload, why, List.of(), null, null)));
    chain.sync();
    Event fork = ev.get(0);
    try (CommitBatch b = git.batch()) {
      b.commit(chain.dirtySegments(), CommitFormat.author("memoryd", now), CommitFormat.committer(now),
          CommitFormat.message(List.of(why), null, "memoryd", List.of(eventId), fork.seq(),
              fork.integrity().lineHash(), chain.branch().value()));
      b.publish().orThrow();
    }
  }

  /** Copies a merge refusal's {@code details.conflicts} into {@code r.conflicts}; false when it has none. */
  private static boolean putConflicts(Failure f, ObjectNode r) {
    if (f.reason() != ErrorReason.CONFLICT || !(f.details().get("conflicts") instanceof List<?> list)) {
      return false;
    }
    com.fasterxml.jackson.databind.node.ArrayNode arr = r.putArray("conflicts");
    for (Object x : list) {
      ObjectNode k = arr.addObject();
      ((Map<?, ?>) x).forEach((key, v) -> k.put(String.valueOf(key), v == null ? null : String.valueOf(v)));
    }
    return true;
  }

  private static String actorOr(String actor) {
    return actor == null || actor.isBlank() ? "agent" : actor;
  }

  private static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws IOException {
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
      return () -> { };
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
