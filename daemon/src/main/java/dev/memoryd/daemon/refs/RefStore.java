package dev.memoryd.daemon.refs;

import dev.memoryd.daemon.layout.RootLayout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import org.eclipse.jgit.lib.ObjectId;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.drift.DriftQueue;
import dev.memoryd.daemon.write.Contextual;
import dev.memoryd.daemon.write.DriftView;
import dev.memoryd.daemon.write.HumanCapture;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.MemoryDocument;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.slices.SliceFile;
import dev.memoryd.grammar.slices.SliceProblem;
import dev.memoryd.grammar.slices.SliceValidator;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.IdGenerator;

/**
 * File references reconciled against Git history. A reference is a pointer slice
 * ({@code .slices/<id>.slice}, {@code kind: pointer}) pinned to the commit and blob at which a
 * file of the memory repository, or of another local Git repository, stood when it was added
 * (or last re-pinned). {@link #reconcile} walks each repository's history since each pin and puts
 * every changed, renamed or deleted reference into the drift queue with the commits that touched
 * it; {@link #repin} moves a pin to where the file stands now (following a rename), {@link #retire}
 * marks a reference as no longer followed. Both close the reference's open drift item.
 *
 * <p>Contract: every change is one declaration through the writer (events {@code ref_add},
 * {@code ref_repin}, {@code ref_retire}, {@code drift_flagged}, {@code drift_resolved}) and one
 * commit; each event carries the whole new frontmatter, so recovery and replay rebuild the
 * pointer files from the ledger alone. Bad input is a {@link Failure} and records nothing. A
 * reconcile that finds what the queue already holds records nothing. Methods block until the
 * writer answers: call them from a connection thread, never the writer's. Thread-safe.
 *
 * <p>Pointer frontmatter: {@code payload.uri} ({@code ./<path>} in the memory repository,
 * {@code git+file://<repo>#<path>} elsewhere), {@code payload.hash} ({@code sha256:} of the
 * file's bytes, the Slices v1 hash form) and {@code payload.size}; {@code meta.ref: git},
 * {@code meta.repo} ({@code .} for the memory repository, else its absolute path),
 * {@code meta.path}, {@code meta.pinned_commit}, {@code meta.blob} (the Git blob id),
 * {@code meta.placed_on}, {@code meta.section}, and {@code meta.retired_at} once retired.
 */
public final class RefStore {
  public static final String OP_ADD = "ref_add";
  public static final String OP_REPIN = "ref_repin";
  public static final String OP_RETIRE = "ref_retire";
  public static final String KIND_PREFIX = "ref_";
  public static final String CHANGED = "ref_changed";
  public static final String RENAMED = "ref_renamed";
  public static final String DELETED = "ref_deleted";
  /** {@code meta.repo} of a file in the memory repository itself. */
  public static final String MEMORY_REPO = ".";
  private static final Pattern ID = Pattern.compile("[0-9A-Za-z_-]{1,128}");
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final List<String> TOP_ORDER =
      List.of("v", "id", "kind", "title", "summary", "body", "payload", "contract", "links", "derived_from", "meta");
  private static final YAMLMapper YAML = dev.memoryd.grammar.frontmatter.Frontmatter.WRITER;

  private final WritePipeline writer;
  private final IdGenerator ids;
  private final Path root;
  private final Path realRoot;
  private final DriftQueue drift;

  public RefStore(WritePipeline writer, IdGenerator ids, Path root, DriftQueue drift) throws IOException {
    this.writer = writer;
    this.ids = ids;
    this.root = root;
    this.realRoot = root.toRealPath();
    this.drift = drift;
    for (String op : List.of(OP_ADD, OP_REPIN, OP_RETIRE)) {
      writer.registerReplayer(op, RefStore::replay);
    }
    drift.resolveKindsWith(KIND_PREFIX, this::resolveDrift);
  }

  // ---------------------------------------------------------------- add

  /**
   * Adds a reference to {@code path} (relative to {@code repo}'s work tree, or absolute inside
   * it) in {@code repo} (an absolute path; null: the memory repository), pinned to HEAD there.
   * {@code placedOn}: memory files (repository paths) or slice ids the reference belongs to;
   * {@code section}: a section of the one memory file it is placed on.
   */
  public Outcome<ObjectNode> add(String path, String repo, String section, List<String> placedOn, String actor)
      throws IOException {
    if (placedOn == null || placedOn.isEmpty()) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "placed_on is required: the memory file(s) or slice id(s)"
          + " the reference belongs to");
    }
    Optional<Failure> bad = checkPlacement(placedOn, section);
    if (bad.isPresent()) {
      return Outcome.fail(bad.get());
    }
    Path repoDir;
    String repoKey;
    if (repo == null || repo.isBlank()) {
      repoDir = realRoot;
      repoKey = MEMORY_REPO;
    } else {
      Path r = Path.of(repo);
      if (!r.isAbsolute()) {
        return Outcome.fail(ErrorReason.INVALID_REQUEST, "repo must be an absolute path to a local Git repository,"
            + " not '" + repo + "'");
      }
      if (!Files.isDirectory(r)) {
        return Outcome.fail(ErrorReason.NOT_FOUND, "no Git repository at " + repo + " (no such directory)");
      }
      repoDir = r.toRealPath();
      repoKey = repoDir.equals(realRoot) ? MEMORY_REPO : repoDir.toString();
    }
    try (GitHistory g = GitHistory.open(repoDir)) {
      if (g == null) {
        return Outcome.fail(ErrorReason.NOT_FOUND, "no Git repository at " + repoDir + " (no .git there)");
      }
      if (g.head() == null) {
        return Outcome.fail(ErrorReason.NOT_FOUND, "the Git repository at " + repoDir + " has no commits yet");
      }
      Outcome<String> rel = relative(repoDir, path);
      if (rel instanceof Outcome.Failed<String> f) {
        return Outcome.fail(f.failure());
      }
      String file = ((Outcome.Ok<String>) rel).value();
      GitHistory.Entry e = g.entryAtHead(file);
      String at = " at HEAD (" + g.head().name().substring(0, 12) + ") of " + display(repoKey);
      if (e == null) {
        boolean onDisk = Files.exists(repoDir.resolve(file), LinkOption.NOFOLLOW_LINKS);
        return Outcome.fail(new Failure(ErrorReason.NOT_FOUND, onDisk
            ? file + " is not committed" + at + "; a reference pins a committed file: commit it first"
            : "no file " + file + at, Map.of("path", file)));
      }
      if (!e.isFile()) {
        return Outcome.fail(new Failure(ErrorReason.INVALID_REQUEST, file + " is not a file" + at
            + " (a directory or submodule); reference a file", Map.of("path", file)));
      }
      GitHistory.Digest d = g.digest(e.id());
      ObjectNode slice = F.objectNode();
      slice.put("v", "1");
      slice.put("id", ids.next().value());
      slice.put("kind", "pointer");
      describe(slice, repoKey, file, g.head(), e.id(), d);
      ObjectNode meta = slice.putObject("meta");
      meta.put("ref", "git");
      meta.put("repo", repoKey);
      meta.put("path", file);
      meta.put("pinned_commit", g.head().name());
      meta.put("blob", e.id().name());
      ArrayNode po = meta.putArray("placed_on");
      placedOn.forEach(po::add);
      if (section != null) {
        meta.put("section", section);
      }
      WriteOutcome out = await(writer.submit(WriteRequest.of(new Add(slice), "reference " + file + " in "
          + display(repoKey), actor == null ? "agent" : actor)));
      if (out instanceof WriteOutcome.Rejected rej) {
        return Outcome.fail(rej.failure());
      }
      WriteOutcome.Committed c = (WriteOutcome.Committed) out;
      ObjectNode r = F.objectNode();
      r.put("id", slice.get("id").asText());
      r.put("pointer", pathOf(slice.get("id").asText()).value());
      r.put("uri", slice.path("payload").path("uri").asText());
      r.put("repo", repoKey);
      r.put("path", file);
      r.put("pinned_commit", g.head().name());
      r.put("blob", e.id().name());
      r.put("hash", d.sha256());
      r.put("commit", c.commit());
      r.put("event_id", c.events().get(0).eventId());
      return Outcome.ok(r);
    }
  }

  /** The file's path relative to the repository, or why it cannot be one. */
  private static Outcome<String> relative(Path repoDir, String path) throws IOException {
    if (path == null || path.isBlank()) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "missing parameter 'path'");
    }
    Path p = Path.of(path);
    Path n = (p.isAbsolute() ? p : repoDir.resolve(p)).normalize();
    if (!n.startsWith(repoDir) && n.getParent() != null && Files.isDirectory(n.getParent())) {
      n = n.getParent().toRealPath().resolve(n.getFileName()); // an absolute path through a symlink
    }
    if (!n.startsWith(repoDir) || n.equals(repoDir)) {
      return Outcome.fail(new Failure(ErrorReason.INVALID_REQUEST, "path '" + path + "' is outside the repository "
          + repoDir + "; give a file inside it, relative to its top or absolute", Map.of("path", path)));
    }
    String rel = repoDir.relativize(n).toString().replace('\\', '/');
    try {
      return Outcome.ok(RepoPath.of(rel).value());
    } catch (IllegalArgumentException e) {
      return Outcome.fail(new Failure(ErrorReason.INVALID_REQUEST, "bad path '" + path + "': " + e.getMessage(),
          Map.of("path", path)));
    }
  }

  private Optional<Failure> checkPlacement(List<String> placedOn, String section) throws IOException {
    for (String s : placedOn) {
      if (s == null || s.isBlank()) {
        return Optional.of(Failure.of(ErrorReason.INVALID_REQUEST, "placed_on entries must be non-empty strings"));
      }
      boolean slice = ID.matcher(s).matches() && Files.isRegularFile(root.resolve(pathOf(s).value()), LinkOption.NOFOLLOW_LINKS);
      boolean file = false;
      try {
        file = Files.isRegularFile(root.resolve(RepoPath.of(s).value()), LinkOption.NOFOLLOW_LINKS);
      } catch (IllegalArgumentException e) {
        // not a repository path; it may still be a slice id
      }
      if (!slice && !file) {
        return Optional.of(new Failure(ErrorReason.NOT_FOUND, "placed_on '" + s + "' is neither a file of the memory"
            + " repository nor a slice id", Map.of("placed_on", s)));
      }
    }
    if (section == null) {
      return Optional.empty();
    }
    String only = placedOn.get(0);
    if (placedOn.size() != 1 || !RootLayout.isMemoryFile(only)
        || !Files.isRegularFile(root.resolve(only), LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of(Failure.of(ErrorReason.INVALID_REQUEST, "section needs placed_on to be exactly one memory"
          + " file (users/.../*.md)"));
    }
    MemoryDocument doc = MemoryDocument.parse(Files.readString(root.resolve(only), StandardCharsets.UTF_8));
    List<String> names = new ArrayList<>();
    for (MemoryDocument.Section s : doc.sections()) {
      if (s.level() == 2) {
        if (section.equals(s.heading()) || section.equals(s.anchor())) {
          return Optional.empty();
        }
        names.add(s.heading());
      }
    }
    return Optional.of(new Failure(ErrorReason.UNKNOWN_SECTION, "no section '" + section + "' in " + only,
        Map.of("sections", names)));
  }

  /** Title, summary, body and payload of a pointer pinned at (commit, blob). */
  private static void describe(ObjectNode slice, String repoKey, String file, ObjectId commit, ObjectId blob,
      GitHistory.Digest d) {
    slice.put("title", "Reference: " + file);
    slice.put("summary", file + " in " + display(repoKey) + ", pinned at commit " + commit.name().substring(0, 12)
        + " (blob " + blob.name().substring(0, 12) + "). Reconciled against Git history with 'memoryd refs reconcile'.");
    slice.putObject("body").put("type", "none");
    ObjectNode payload = slice.putObject("payload");
    payload.put("uri", uri(repoKey, file));
    payload.put("hash", d.sha256());
    payload.put("size", d.size());
  }

  static String uri(String repoKey, String file) {
    return MEMORY_REPO.equals(repoKey) ? "./" + encode(file) : "git+file://" + encode(repoKey) + "#" + encode(file);
  }

  /** Percent-encodes what a URI path or fragment cannot hold as is. */
  private static String encode(String s) {
    StringBuilder sb = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (c > 0x20 && c < 0x7f && "%#?[]\"<>\\^`{|}".indexOf(c) < 0) {
        sb.append((char) c);
      } else {
        sb.append('%').append(String.format("%02X", c));
      }
    }
    return sb.toString();
  }

  private static String display(String repoKey) {
    return MEMORY_REPO.equals(repoKey) ? "the memory repository" : repoKey;
  }

  // ---------------------------------------------------------------- reading pointers

  /** A live or retired reference as its pointer file holds it. */
  record Ref(String id, RepoPath pointer, String repo, String path, ObjectId commit, ObjectId blob, boolean retired,
      ObjectNode slice) {}

  static RepoPath pathOf(String id) {
    return RepoPath.of(".slices/" + id + ".slice");
  }

  /** A reference from a pointer file's text; empty when the text is not a file reference. */
  static Optional<Ref> parse(RepoPath pointer, String text) {
    Optional<JsonNode> s = SliceFile.parse(text).slice();
    if (s.isEmpty() || !s.get().isObject() || !"pointer".equals(s.get().path("kind").asText())) {
      return Optional.empty();
    }
    JsonNode m = s.get().path("meta");
    if (!"git".equals(m.path("ref").asText()) || !ObjectId.isId(m.path("pinned_commit").asText())
        || !ObjectId.isId(m.path("blob").asText()) || !m.path("path").isTextual() || !m.path("repo").isTextual()) {
      return Optional.empty();
    }
    return Optional.of(new Ref(s.get().path("id").asText(), pointer, m.get("repo").asText(), m.get("path").asText(),
        ObjectId.fromString(m.get("pinned_commit").asText()), ObjectId.fromString(m.get("blob").asText()),
        m.hasNonNull("retired_at"), (ObjectNode) s.get()));
  }

  /** Every file reference in {@code .slices/}, by pointer path order. */
  List<Ref> scan() throws IOException {
    List<Ref> out = new ArrayList<>();
    Path dir = root.resolve(".slices");
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(f -> f.getFileName().toString().endsWith(".slice"))
          .filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).sorted().toList();
    }
    for (Path f : files) {
      String text = Files.readString(f, StandardCharsets.UTF_8);
      if (text.contains("ref: git")) { // cheap pre-filter: most slices are not references
        parse(RepoPath.of(".slices/" + f.getFileName()), text).ifPresent(out::add);
      }
    }
    return out;
  }

  /** Every reference (retired ones too when {@code all}). */
  public ObjectNode list(boolean all) throws IOException {
    ObjectNode r = F.objectNode();
    ArrayNode refs = r.putArray("refs");
    for (Ref ref : scan()) {
      if (ref.retired() && !all) {
        continue;
      }
      ObjectNode o = refs.addObject();
      o.put("id", ref.id());
      o.put("pointer", ref.pointer().value());
      o.put("repo", ref.repo());
      o.put("path", ref.path());
      o.put("pinned_commit", ref.commit().name());
      o.put("blob", ref.blob().name());
      o.set("placed_on", ref.slice().path("meta").path("placed_on"));
      o.put("section", ref.slice().path("meta").path("section").asText(null));
      o.put("retired", ref.retired());
      drift.openOn(ref.pointer()).ifPresent(i -> o.put("drift_id", i.id()));
    }
    return r;
  }

  private Path repoDir(String repoKey) {
    return MEMORY_REPO.equals(repoKey) ? realRoot : Path.of(repoKey);
  }

  // ---------------------------------------------------------------- reconcile

  /** One reference whose file moved on since its pin. */
  record Change(Ref ref, GitHistory.Finding finding) {
    String kind() {
      return switch (finding.kind()) {
        case CHANGED -> CHANGED;
        case RENAMED -> RENAMED;
        case DELETED -> DELETED;
        case UNCHANGED -> throw new IllegalStateException("not a change");
      };
    }

    /** The drift item's text: what changed, up to its newest commit (a newer commit makes it new). */
    String text() {
      String newest = finding.commits().isEmpty() ? "unknown commits" : "newest commit "
          + finding.commits().get(0).id().substring(0, 12);
      return switch (finding.kind()) {
        case CHANGED -> ref.path() + " changed; " + newest;
        case RENAMED -> ref.path() + " renamed to " + finding.path() + " (blob " + finding.blob().name().substring(0, 12)
            + "); " + newest;
        default -> ref.path() + " deleted; " + newest;
      };
    }

    String reason() {
      String where = MEMORY_REPO.equals(ref.repo()) ? "the memory repository" : ref.repo();
      String since = " since its pin at " + ref.commit().name().substring(0, 12) + " (" + finding.commitsTotal()
          + " commit" + (finding.commitsTotal() == 1 ? "" : "s") + ")";
      return switch (finding.kind()) {
        case CHANGED -> "the referenced file " + ref.path() + " in " + where + " changed" + since;
        case RENAMED -> "the referenced file " + ref.path() + " in " + where + " was renamed to " + finding.path() + since;
        default -> "the referenced file " + ref.path() + " in " + where + " was deleted" + since;
      };
    }
  }

  /** What a reconcile found; {@code problems}: references whose repository cannot be read. */
  record Scan(int checked, List<Change> changes, List<Ref> unchanged, List<ObjectNode> problems) {}

  /** Classifies every live reference against its repository's HEAD. Reads only. */
  Scan classify(List<Ref> refs) throws IOException {
    Map<String, List<Ref>> byRepo = new TreeMap<>();
    int checked = 0;
    for (Ref r : refs) {
      if (!r.retired()) {
        byRepo.computeIfAbsent(r.repo(), k -> new ArrayList<>()).add(r);
        checked++;
      }
    }
    List<Change> changes = new ArrayList<>();
    List<Ref> unchanged = new ArrayList<>();
    List<ObjectNode> problems = new ArrayList<>();
    for (Map.Entry<String, List<Ref>> e : byRepo.entrySet()) {
      Path dir = repoDir(e.getKey());
      GitHistory g = Files.isDirectory(dir) ? GitHistory.open(dir) : null;
      if (g == null || g.head() == null) {
        for (Ref r : e.getValue()) {
          problems.add(F.objectNode().put("id", r.id()).put("repo", r.repo()).put("path", r.path())
              .put("problem", g == null ? "no Git repository at " + dir + " any more" : "the repository has no commits"));
        }
        if (g != null) {
          g.close();
        }
        continue;
      }
      try (g) {
        List<String> paths = new ArrayList<>();
        e.getValue().forEach(r -> paths.add(r.path()));
        Map<String, ObjectId> now = g.blobsAtHead(paths);
        for (Ref r : e.getValue()) {
          GitHistory.Finding f = g.reconcile(r.path(), r.commit(), r.blob(), now.get(r.path()));
          if (f.kind() == GitHistory.Kind.UNCHANGED) {
            unchanged.add(r);
          } else {
            changes.add(new Change(r, f));
          }
        }
      }
    }
    return new Scan(checked, changes, unchanged, problems);
  }

  /**
   * Walks history since every live reference's pin and records each changed, renamed or deleted
   * one as a drift item ({@code ref_changed}, {@code ref_renamed}, {@code ref_deleted}) carrying
   * the commits that touched it; an open item that already says the same is left alone, one that
   * a newer commit outdates is updated, and one whose file is back at its pinned bytes is closed.
   * One commit when anything is recorded, none otherwise.
   */
  public Outcome<ObjectNode> reconcile(String actor) throws IOException {
    long t0 = System.nanoTime();
    Scan scan = classify(scan());
    Map<String, String> driftIds = new ConcurrentHashMap<>();
    Map<String, Boolean> recorded = new ConcurrentHashMap<>();
    List<String> closed = Collections.synchronizedList(new ArrayList<>());
    Contextual m = ctx -> bindReconcile(ctx, scan, driftIds, recorded, closed);
    WriteOutcome out = await(writer.submit(WriteRequest.of(m, "reconcile " + scan.checked()
        + " file reference(s) against Git history", actor == null ? "memoryd" : actor)));
    if (out instanceof WriteOutcome.Rejected rej) {
      return Outcome.fail(rej.failure());
    }
    ObjectNode r = F.objectNode();
    r.put("checked", scan.checked());
    r.put("unchanged", scan.unchanged().size());
    ArrayNode fs = r.putArray("findings");
    for (Change c : scan.changes()) {
      ObjectNode o = fs.addObject();
      o.put("id", c.ref().id());
      o.put("pointer", c.ref().pointer().value());
      o.put("drift_id", driftIds.get(c.ref().id()));
      o.put("recorded", recorded.getOrDefault(c.ref().id(), false));
      o.put("kind", c.kind());
      o.put("repo", c.ref().repo());
      o.put("path", c.ref().path());
      o.put("new_path", c.finding().kind() == GitHistory.Kind.RENAMED ? c.finding().path() : null);
      o.put("commits_total", c.finding().commitsTotal());
      o.set("commits", commitsJson(c.finding().commits()));
    }
    ArrayNode cl = r.putArray("closed");
    closed.forEach(cl::add);
    ArrayNode pr = r.putArray("problems");
    scan.problems().forEach(pr::add);
    r.put("commit", out instanceof WriteOutcome.Committed c ? c.commit() : null);
    r.put("millis", (System.nanoTime() - t0) / 1_000_000);
    return Outcome.ok(r);
  }

  private static Mutation bindReconcile(Contextual.Context ctx, Scan scan, Map<String, String> driftIds,
      Map<String, Boolean> recorded, List<String> closed) {
    List<Mutation.EventSpec> events = new ArrayList<>();
    DriftView dv = ctx.drift();
    for (Change c : scan.changes()) {
      if (!stillPinned(ctx, c.ref())) {
        continue; // re-pinned or retired since the scan: what it found is about an old pin
      }
      Optional<DriftView.Item> open = dv.openOn(c.ref().pointer());
      String text = c.text();
      if (open.isPresent() && Objects.equals(open.get().text(), text)) {
        driftIds.put(c.ref().id(), open.get().id());
        continue;
      }
      String id = open.map(DriftView.Item::id).orElseGet(ctx::newId);
      driftIds.put(c.ref().id(), id);
      recorded.put(c.ref().id(), true);
      events.add(flagged(c, id, text));
    }
    for (Ref r : scan.unchanged()) {
      Optional<DriftView.Item> open = dv.openOn(r.pointer());
      if (open.isPresent() && stillPinned(ctx, r)) {
        closed.add(open.get().id());
        events.add(HumanCapture.resolved(r.pointer(), open.get().id(), "unchanged",
            "the referenced file is back at its pinned bytes"));
      }
    }
    return (files, now) -> new Mutation.Done(Map.of(), events, !events.isEmpty());
  }

  private static boolean stillPinned(Contextual.Context ctx, Ref r) {
    Optional<Ref> now = ctx.disk(r.pointer()).flatMap(t -> parse(r.pointer(), t));
    return now.isPresent() && !now.get().retired() && now.get().commit().equals(r.commit())
        && now.get().path().equals(r.path());
  }

  private static Mutation.EventSpec flagged(Change c, String id, String text) {
    ObjectNode p = F.objectNode();
    ObjectNode d = p.putObject("drift");
    d.put("id", id);
    d.put("kind", c.kind());
    d.put("reason", c.reason());
    d.put("text", text);
    ObjectNode ref = d.putObject("ref");
    ref.put("id", c.ref().id());
    ref.put("repo", c.ref().repo());
    ref.put("path", c.ref().path());
    ref.put("new_path", c.finding().kind() == GitHistory.Kind.RENAMED ? c.finding().path() : null);
    ref.put("pinned_commit", c.ref().commit().name());
    ref.put("pinned_blob", c.ref().blob().name());
    ref.put("blob", c.finding().blob() == null ? null : c.finding().blob().name());
    ObjectNode human = p.putObject("human");
    human.put("source", "git_history");
    human.put("repo", c.ref().repo());
    human.put("commits_total", c.finding().commitsTotal());
    human.set("commits", commitsJson(c.finding().commits()));
    return new Mutation.EventSpec(HumanCapture.OP_DRIFT, c.ref().pointer(), null, null, null, p, List.of(),
        "reference " + c.ref().path() + ": " + c.kind());
  }

  private static ArrayNode commitsJson(List<GitHistory.Commit> commits) {
    ArrayNode a = F.arrayNode();
    for (GitHistory.Commit c : commits) {
      a.addObject().put("id", c.id()).put("author", c.author()).put("date", c.date()).put("subject", c.subject());
    }
    return a;
  }

  // ---------------------------------------------------------------- repin and retire

  /** A reference named by its pointer id or by the id of its open drift item. */
  private Outcome<Ref> find(String id) throws IOException {
    if (id == null || id.isBlank()) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "missing parameter 'id'");
    }
    Optional<DriftQueue.Entry> item = drift.get(id);
    RepoPath pointer;
    if (item.isPresent() && item.get().kind().startsWith(KIND_PREFIX)) {
      pointer = item.get().path();
    } else if (ID.matcher(id).matches()) {
      pointer = pathOf(id);
    } else {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "id must be a reference id or a drift item id, not '" + id + "'");
    }
    Path f = root.resolve(pointer.value());
    if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
      return Outcome.fail(ErrorReason.NOT_FOUND, "no file reference " + id + " (see 'memoryd refs list')");
    }
    Optional<Ref> r = parse(pointer, Files.readString(f, StandardCharsets.UTF_8));
    if (r.isEmpty()) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "slice " + id + " is not a file reference (a pointer with meta.ref: git)");
    }
    return Outcome.ok(r.get());
  }

  /**
   * Re-pins a reference to where its file stands at HEAD now, under its new name after a rename,
   * and closes its open drift item (resolution {@code repin}). A deleted file cannot be re-pinned:
   * retire the reference. Nothing is recorded when the pin is current and no item is open.
   */
  public Outcome<ObjectNode> repin(String id, String actor, String note) throws IOException {
    Outcome<Ref> found = find(id);
    if (found instanceof Outcome.Failed<Ref> f) {
      return Outcome.fail(f.failure());
    }
    Ref ref = ((Outcome.Ok<Ref>) found).value();
    if (ref.retired()) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "reference " + ref.id() + " is retired; add a new one instead");
    }
    Path dir = repoDir(ref.repo());
    try (GitHistory g = Files.isDirectory(dir) ? GitHistory.open(dir) : null) {
      if (g == null || g.head() == null) {
        return Outcome.fail(ErrorReason.NOT_FOUND, "no Git repository with commits at " + dir
            + " any more; retire the reference with 'memoryd refs retire " + ref.id() + "'");
      }
      GitHistory.Finding f = g.reconcile(ref.path(), ref.commit(), ref.blob(),
          g.blobsAtHead(List.of(ref.path())).get(ref.path()));
      if (f.kind() == GitHistory.Kind.DELETED) {
        return Outcome.fail(new Failure(ErrorReason.NOT_FOUND, ref.path() + " was deleted from " + display(ref.repo())
            + " and cannot be re-pinned; retire the reference with 'memoryd refs retire " + ref.id() + "'",
            Map.of("id", ref.id(), "path", ref.path())));
      }
      ObjectNode slice = ref.slice().deepCopy();
      describe(slice, ref.repo(), f.path(), g.head(), f.blob(), g.digest(f.blob()));
      ObjectNode meta = (ObjectNode) slice.get("meta");
      meta.put("path", f.path());
      meta.put("pinned_commit", g.head().name());
      meta.put("blob", f.blob().name());
      ObjectNode from = F.objectNode().put("path", ref.path()).put("pinned_commit", ref.commit().name())
          .put("blob", ref.blob().name());
      boolean samePin = f.kind() == GitHistory.Kind.UNCHANGED && g.head().equals(ref.commit());
      WriteOutcome out = await(writer.submit(WriteRequest.of(new Rewrite(OP_REPIN, ref, slice, from, "repin", note,
          samePin), note == null ? "re-pin reference " + ref.path() : note, actor == null ? "maintainer" : actor)));
      if (out instanceof WriteOutcome.Rejected rej) {
        return Outcome.fail(rej.failure());
      }
      ObjectNode r = F.objectNode();
      r.put("id", ref.id());
      r.put("path", f.path());
      r.put("previous_path", ref.path());
      r.put("pinned_commit", g.head().name());
      r.put("blob", f.blob().name());
      r.put("commit", out instanceof WriteOutcome.Committed c ? c.commit() : null);
      return Outcome.ok(r);
    }
  }

  /** Marks a reference retired (kept, never reconciled again) and closes its open drift item (resolution {@code retire}). */
  public Outcome<ObjectNode> retire(String id, String actor, String note) throws IOException {
    Outcome<Ref> found = find(id);
    if (found instanceof Outcome.Failed<Ref> f) {
      return Outcome.fail(f.failure());
    }
    Ref ref = ((Outcome.Ok<Ref>) found).value();
    if (ref.retired()) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "reference " + ref.id() + " is already retired");
    }
    ObjectNode slice = ref.slice().deepCopy();
    WriteOutcome out = await(writer.submit(WriteRequest.of(new Rewrite(OP_RETIRE, ref, slice, null, "retire", note,
        false), note == null ? "retire reference " + ref.path() : note, actor == null ? "maintainer" : actor)));
    if (out instanceof WriteOutcome.Rejected rej) {
      return Outcome.fail(rej.failure());
    }
    ObjectNode r = F.objectNode();
    r.put("id", ref.id());
    r.put("retired", true);
    r.put("commit", out instanceof WriteOutcome.Committed c ? c.commit() : null);
    return Outcome.ok(r);
  }

  /**
   * {@code drift resolve} on a reference's item: {@code --accept-current} re-pins it (the file as it
   * is now becomes the pin); the other resolutions are about memory files' text and are refused
   * with the commands that do apply.
   */
  private CompletableFuture<WriteOutcome> resolveDrift(DriftQueue.Entry item, DriftQueue.Resolution how, String actor,
      String note) {
    String pointerId = item.path().value().substring(".slices/".length(), item.path().value().length() - ".slice".length());
    if (DELETED.equals(item.kind())) {
      // Nothing is left to pin: repinning (or accepting the current file) can only fail.
      return CompletableFuture.completedFuture(new WriteOutcome.Rejected(-1, new Failure(ErrorReason.INVALID_REQUEST,
          "drift item " + item.id() + " is a file reference whose file was deleted (" + item.kind() + "); retire the"
              + " reference with 'memoryd refs retire " + pointerId + "'", Map.of("id", pointerId))));
    }
    if (!(how instanceof DriftQueue.AcceptCurrent)) {
      return CompletableFuture.completedFuture(new WriteOutcome.Rejected(-1, new Failure(ErrorReason.INVALID_REQUEST,
          "drift item " + item.id() + " is a file reference (" + item.kind() + "); resolve it with 'memoryd refs repin "
              + pointerId + "' (or drift resolve --accept-current, which re-pins) or 'memoryd refs retire " + pointerId
              + "'", Map.of("id", pointerId))));
    }
    try {
      Outcome<ObjectNode> o = repin(pointerId, actor, note);
      if (o instanceof Outcome.Failed<ObjectNode> f) {
        return CompletableFuture.completedFuture(new WriteOutcome.Rejected(-1, f.failure()));
      }
      String commit = ((Outcome.Ok<ObjectNode>) o).value().path("commit").asText(null);
      return CompletableFuture.completedFuture(commit == null ? new WriteOutcome.Unchanged(null)
          : new WriteOutcome.Committed(commit, List.of(), false));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---------------------------------------------------------------- mutations

  /** Writes a new pointer file. */
  record Add(ObjectNode slice) implements Mutation {
    @Override
    public Result apply(dev.memoryd.grammar.FileSource files, Instant now) {
      ObjectNode s = slice.deepCopy();
      ((ObjectNode) s.get("meta")).put("created_at", now.toString()).put("pinned_at", now.toString());
      RepoPath path = pathOf(s.get("id").asText());
      if (files.read(path).isPresent()) {
        return new Refused(-1, Failure.of(ErrorReason.CONFLICT, path.value() + " already exists"));
      }
      return written(OP_ADD, path, s, null, "added reference " + s.path("meta").path("path").asText(), List.of());
    }
  }

  /**
   * Re-pins or retires a reference, decided on the writer thread: refused when the pointer moved
   * on since the caller read it (another re-pin or a retirement won); closes its open drift item.
   */
  private record Rewrite(String op, Ref ref, ObjectNode slice, ObjectNode from, String resolution, String note,
      boolean samePin) implements Contextual {
    @Override
    public Mutation bind(Contextual.Context ctx) {
      Optional<Ref> now = ctx.disk(ref.pointer()).flatMap(t -> parse(ref.pointer(), t));
      if (now.isEmpty() || now.get().retired() || !now.get().commit().equals(ref.commit())
          || !now.get().path().equals(ref.path())) {
        return (files, t) -> new Refused(-1, Failure.of(ErrorReason.CONFLICT, "reference " + ref.id()
            + " was re-pinned or retired meanwhile; read it again"));
      }
      Optional<DriftView.Item> open = ctx.drift().openOn(ref.pointer());
      if (samePin && open.isEmpty()) {
        return (files, t) -> new Done(Map.of(), List.of(), false);
      }
      return (files, t) -> {
        ObjectNode s = slice.deepCopy();
        ObjectNode meta = (ObjectNode) s.get("meta");
        List<EventSpec> extra = new ArrayList<>();
        open.ifPresent(o -> extra.add(HumanCapture.resolved(ref.pointer(), o.id(), resolution, note)));
        if (OP_RETIRE.equals(op)) {
          meta.put("retired_at", t.toString());
          if (note != null) {
            meta.put("retired_reason", note);
          }
          return written(op, ref.pointer(), s, null, "retired reference " + ref.path(), extra);
        }
        meta.put("pinned_at", t.toString());
        return written(op, ref.pointer(), s, from, "re-pinned reference " + meta.path("path").asText(), extra);
      };
    }
  }

  /** The pointer file's new text and its event (then {@code extra} events), refused if it is not valid Slices v1. */
  private static Mutation.Result written(String op, RepoPath path, ObjectNode slice, ObjectNode from, String summary,
      List<Mutation.EventSpec> extra) {
    String text = render(slice);
    List<SliceProblem> ps = SliceValidator.validate(SliceFile.parse(text));
    if (!ps.isEmpty()) {
      // Built here from checked input; a problem is a bug, reported rather than recorded.
      return new Mutation.Refused(-1, Failure.of(ErrorReason.SPEC_VIOLATION, "the pointer is not valid Slices v1: "
          + ps.get(0).fieldPath() + ": " + ps.get(0).message()));
    }
    ObjectNode payload = F.objectNode();
    payload.set("slice", slice);
    if (from != null) {
      payload.set("from", from);
    }
    List<Mutation.EventSpec> events = new ArrayList<>();
    events.add(new Mutation.EventSpec(op, path, null, null, null, payload, List.of(), summary));
    events.addAll(extra);
    return new Mutation.Done(Map.of(path, text), events, true);
  }

  /** Redoes a declaration of this store from its events: each pointer file is its event's frontmatter. */
  private static Mutation replay(List<Event> group) {
    return (files, now) -> {
      Map<RepoPath, String> contents = new LinkedHashMap<>();
      List<Mutation.EventSpec> specs = new ArrayList<>();
      for (Event e : group) {
        RepoPath path = e.filePath() == null ? null : RepoPath.of(e.filePath());
        specs.add(new Mutation.EventSpec(e.op(), path, e.sectionAnchor(), e.beforeHash(), e.afterHash(),
            (ObjectNode) e.payload(), e.evidenceRefs(), e.op() + " " + e.filePath()));
        if (OP_ADD.equals(e.op()) || OP_REPIN.equals(e.op()) || OP_RETIRE.equals(e.op())) {
          contents.put(path, render((ObjectNode) e.payload().get("slice")));
        }
      }
      return new Mutation.Done(contents, specs, true);
    };
  }

  /**
   * The pointer file's text. Keys are put in one fixed order (the spec's at the top, sorted below)
   * because the ledger stores payloads in JCS form, with sorted keys: replay must render the same
   * bytes from them as the live write did.
   */
  static String render(ObjectNode slice) {
    ObjectNode ordered = F.objectNode();
    for (String k : TOP_ORDER) {
      if (slice.has(k)) {
        ordered.set(k, sorted(slice.get(k)));
      }
    }
    Map<String, JsonNode> rest = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = slice.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!TOP_ORDER.contains(e.getKey())) {
        rest.put(e.getKey(), e.getValue());
      }
    }
    rest.forEach((k, v) -> ordered.set(k, sorted(v)));
    ObjectNode doc = F.objectNode();
    doc.set("slice", ordered);
    try {
      return "---\n" + YAML.writeValueAsString(doc) + "---\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode sorted(JsonNode n) {
    if (n.isObject()) {
      ObjectNode o = F.objectNode();
      Map<String, JsonNode> m = new TreeMap<>();
      n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue()));
      m.forEach((k, v) -> o.set(k, sorted(v)));
      return o;
    }
    if (n.isArray()) {
      ArrayNode a = F.arrayNode();
      n.forEach(x -> a.add(sorted(x)));
      return a;
    }
    return n;
  }

  private static WriteOutcome await(CompletableFuture<WriteOutcome> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new WriteOutcome.Rejected(-1, Failure.of(ErrorReason.UNAVAILABLE, "interrupted while waiting for the writer"));
    } catch (ExecutionException e) {
      return new WriteOutcome.Rejected(-1, Failure.of(ErrorReason.UNAVAILABLE, "not recorded: " + e.getCause().getMessage()));
    }
  }
}
