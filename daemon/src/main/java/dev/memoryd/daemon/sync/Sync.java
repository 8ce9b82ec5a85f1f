package dev.memoryd.daemon.sync;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteRefUpdate;

import dev.memoryd.daemon.ErrorReason;
import dev.memoryd.daemon.Outcome;
import dev.memoryd.daemon.branch.Branches;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Ledger;

/**
 * {@code memoryd sync --remote <name>}: Git remotes are the distributed engine. One sync fetches
 * every branch of the remote, brings other replicas' ledger chains into the ledger directory,
 * merges each remote branch into the local one section by section ({@link Branches#syncMerge}),
 * starts a local branch (and this root's chain of it) for each remote branch it lacks, and
 * pushes every local branch the remote does not contain. Nothing is forced: a push the remote
 * refuses (another root pushed in between) is reported, and the next sync merges it.
 *
 * <p>Replicas: every root writes its own chains ({@code <branch>@<replica>} on a clone), so two
 * roots never append to one chain and a chain file is only ever extended; a merge links this
 * root's chain to the line the other side's head records, and {@code ledger verify} checks it.
 * Both roots need the same ledger key file to verify each other's lines.
 *
 * <p>Thread-safety: one sync at a time per root ({@code synchronized}); writes go on while a
 * sync runs, each merge being one declaration on its branch's writer.
 */
public final class Sync {
  /** https user and password from {@code ~/.netrc} (JGit does not run git's credential helpers). */
  private static final org.eclipse.jgit.transport.CredentialsProvider CREDENTIALS =
      new org.eclipse.jgit.transport.NetRCCredentialsProvider();

  /** Row outcomes of a branch whose merge was refused and waits for the user: not pushed, and the sync is not ok. */
  private static final java.util.Set<String> UNMERGED = java.util.Set.of("conflict", "spec_violation");

  private final Path root;
  private final GitStore git;
  private final Ledger ledger;
  private final Branches branches;

  public Sync(Path root, GitStore git, Ledger ledger, Branches branches) {
    this.root = root;
    this.git = git;
    this.ledger = ledger;
    this.branches = branches;
  }

  /**
   * Fetches from {@code remote}, merges, pushes. {@code resolutions}: an array of
   * {@code {path, section, take, content?}} for the checked-out branch, or an object mapping a
   * branch name to such an array. The result lists each branch's merge outcome and push status;
   * {@code ok} is false when a branch has conflicts, a merge that would break a spec rule
   * ({@code spec_violation}: not merged, not pushed) or a push was refused.
   */
  public synchronized Outcome<ObjectNode> run(String remote, JsonNode resolutions, String actor) throws IOException {
    if (remote == null || remote.isBlank()) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "sync needs a remote name (see 'git remote -v')");
    }
    if (git.repository().getConfig().getString("remote", remote, "url") == null) {
      return Outcome.fail(ErrorReason.NOT_FOUND, "no remote '" + remote + "' in " + root
          + "; add one with 'git -C " + root + " remote add " + remote + " <url>'");
    }
    if (resolutions != null && !resolutions.isNull() && !resolutions.isArray() && !resolutions.isObject()) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, "resolutions must be an array (for the checked-out branch)"
          + " or an object of branch name -> array");
    }
    String prefix = Constants.R_REMOTES + remote + "/";
    try (Git g = Git.wrap(git.repository())) {
      try {
        g.fetch().setRemote(remote).setCredentialsProvider(CREDENTIALS).setRefSpecs(new RefSpec("+" + Constants.R_HEADS + "*:" + prefix + "*"))
            .setRemoveDeletedRefs(true).call();
      } catch (GitAPIException | org.eclipse.jgit.api.errors.JGitInternalException e) {
        return Outcome.fail(ErrorReason.UNAVAILABLE, "fetch from '" + remote + "' failed: " + e.getMessage()
            + "; nothing was changed");
      }
      Map<String, ObjectId> theirs = new TreeMap<>();
      for (Ref r : git.repository().getRefDatabase().getRefsByPrefix(prefix)) {
        String name = r.getName().substring(prefix.length());
        if (!name.equals(Constants.HEAD) && r.getObjectId() != null) {
          theirs.put(name, r.getObjectId());
        }
      }
      int chainFiles = materialize(theirs);
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      out.put("remote", remote).put("fetched_branches", theirs.size()).put("chain_files", chainFiles);
      ArrayNode rows = out.putArray("branches");
      Map<String, ObjectNode> byName = new LinkedHashMap<>();
      boolean ok = true;
      for (Map.Entry<String, ObjectId> e : theirs.entrySet()) {
        ObjectNode row = mergeOne(e.getKey(), e.getValue(), remote, resolutionsFor(resolutions, e.getKey()), actor);
        ok &= !UNMERGED.contains(row.path("outcome").asText()) && !row.has("error");
        rows.add(row);
        byName.put(e.getKey(), row);
      }
      ledger.refresh(c -> !branches.ours(c));
      ok &= push(g, remote, prefix, rows, byName);
      out.put("ok", ok);
      return Outcome.ok(out);
    }
  }

  /** An array is the checked-out branch's; an object maps branch names to arrays. */
  private JsonNode resolutionsFor(JsonNode all, String branch) {
    if (all == null || all.isNull()) {
      return null;
    }
    if (all.isArray()) {
      return branch.equals(branches.checkedOutName()) ? all : null;
    }
    return all.get(branch);
  }

  private ObjectNode mergeOne(String name, ObjectId theirs, String remote, JsonNode resolutions, String actor)
      throws IOException {
    String from = remote + "/" + name;
    if (branches.exists(name)) {
      Outcome<ObjectNode> o = branches.syncMerge(name, theirs, from, resolutions, actor);
      return o instanceof Outcome.Ok<ObjectNode> k ? k.value() : error(name, ((Outcome.Failed<ObjectNode>) o).failure().message());
    }
    if (git.repository().getRefDatabase().exactRef(Branches.DELETED_PREFIX + name) != null) {
      return JsonNodeFactory.instance.objectNode().put("branch", name).put("outcome", "deleted_here")
          .put("message", "deleted on this root; not brought back");
    }
    if (name.startsWith("proposals/")) {
      // Proposal branches carry no chain: they change only through proposals.accept on their base.
      org.eclipse.jgit.lib.RefUpdate u = git.repository().updateRef(Constants.R_HEADS + name);
      u.setNewObjectId(theirs);
      u.setExpectedOldObjectId(ObjectId.zeroId());
      org.eclipse.jgit.lib.RefUpdate.Result res = u.update();
      return JsonNodeFactory.instance.objectNode().put("branch", name).put("outcome", "created")
          .put("commit", theirs.name()).put("ref_update", res.name().toLowerCase(java.util.Locale.ROOT));
    }
    Outcome<ObjectNode> o = branches.create(name, theirs.name(), actor);
    if (o instanceof Outcome.Failed<ObjectNode> f) {
      return error(name, f.failure().message());
    }
    ObjectNode v = ((Outcome.Ok<ObjectNode>) o).value();
    return JsonNodeFactory.instance.objectNode().put("branch", name).put("outcome", "created")
        .put("commit", v.path("head").asText()).put("event_id", v.path("event_id").asText());
  }

  private static ObjectNode error(String branch, String message) {
    return JsonNodeFactory.instance.objectNode().put("branch", branch).put("outcome", "error").put("error", message);
  }

  /**
   * Writes to the ledger directory every segment of another replica's chain that a fetched head
   * holds beyond what is on disk (never this root's own chains, never shortening a file), so
   * links to those chains verify and replay can follow a replica's fork; a chain not committed on
   * the checked-out branch stays out of its {@code git status}. Returns the files written.
   */
  private int materialize(Map<String, ObjectId> heads) throws IOException {
    Map<String, byte[]> best = new TreeMap<>();
    ObjectId checkedOut = git.refNow();
    for (Map.Entry<String, ObjectId> e : heads.entrySet()) {
      ObjectId h = e.getValue();
      // What the local branch holds was brought in by earlier syncs: only the difference is read.
      ObjectId base = git.branchHead(e.getKey()).orElse(checkedOut);
      for (String path : git.changedPaths(base, h, p -> p.startsWith("ledger/"))) {
        BranchName chain = Branches.chainOfPath(path);
        if (chain == null || branches.ours(chain)) {
          continue;
        }
        byte[] b = git.read(h, path).orElse(null);
        byte[] have = best.get(path);
        if (b != null && (have == null || b.length > have.length)) {
          best.put(path, b);
        }
      }
    }
    int written = 0;
    List<BranchName> excluded = new ArrayList<>();
    String checkedOutName = branches.checkedOutName();
    for (Map.Entry<String, byte[]> e : best.entrySet()) {
      Path file = root.resolve(e.getKey());
      Optional<byte[]> disk = Files.exists(file) ? Optional.of(Files.readAllBytes(file)) : Optional.empty();
      byte[] t = e.getValue();
      if (disk.isPresent() && (disk.get().length >= t.length
          || !java.util.Arrays.equals(disk.get(), 0, disk.get().length, t, 0, disk.get().length))) {
        continue; // never shorter, and never lines other than the ones we hold (the merge refuses those)
      }
      dev.memoryd.daemon.write.ResetRecovery.writeAtomically(file, e.getValue());
      written++;
      BranchName chain = Branches.chainOfPath(e.getKey());
      if (!chain.gitBranch().value().equals(checkedOutName) && !excluded.contains(chain)) {
        branches.excludeChain(chain);
        excluded.add(chain);
      }
    }
    ledger.refresh(c -> !branches.ours(c));
    return written;
  }

  /** Pushes every local branch the remote lacks or is behind on; records each status on its row. */
  private boolean push(Git g, String remote, String prefix, ArrayNode rows, Map<String, ObjectNode> byName)
      throws IOException {
    List<RefSpec> specs = new ArrayList<>();
    for (Map.Entry<String, ObjectId> e : git.branches().entrySet()) {
      Ref tracking = git.repository().getRefDatabase().exactRef(prefix + e.getKey());
      ObjectNode row = byName.get(e.getKey());
      if (row == null) {
        row = rows.addObject().put("branch", e.getKey()).put("outcome", "local_only");
        byName.put(e.getKey(), row);
      }
      if (tracking != null && git.isAncestor(e.getValue(), tracking.getObjectId())) {
        row.put("pushed", "up_to_date"); // the remote holds it (or a merge of it)
        continue;
      }
      String outcome = row.path("outcome").asText();
      if (UNMERGED.contains(outcome) || outcome.equals("error")) {
        String next = switch (outcome) {
          case "conflict" -> "; sync again with resolutions for the conflicts";
          case "spec_violation" -> "; change one side so the rule holds (see message), then sync again";
          default -> "";
        };
        row.put("pushed", "not_pushed").put("push_message", "not pushed: the remote's commits are not merged yet" + next);
        continue;
      }
      specs.add(new RefSpec(Constants.R_HEADS + e.getKey() + ":" + Constants.R_HEADS + e.getKey()));
    }
    if (specs.isEmpty()) {
      return true;
    }
    boolean ok = true;
    try {
      for (PushResult pr : g.push().setRemote(remote).setCredentialsProvider(CREDENTIALS).setRefSpecs(specs).call()) {
        for (RemoteRefUpdate u : pr.getRemoteUpdates()) {
          String name = u.getSrcRef().substring(Constants.R_HEADS.length());
          String status = u.getStatus().name().toLowerCase(java.util.Locale.ROOT);
          boolean good = u.getStatus() == RemoteRefUpdate.Status.OK || u.getStatus() == RemoteRefUpdate.Status.UP_TO_DATE;
          ok &= good;
          ObjectNode row = byName.get(name);
          row.put("pushed", good ? "ok" : status);
          if (!good) {
            row.put("push_message", "the remote refused " + name + " (" + status + (u.getMessage() == null ? ""
                : ": " + u.getMessage()) + "); " + (u.getMessage() != null && u.getMessage().contains("lock")
                ? "a ref lock file on the remote blocks it (left by a push that was killed?): its owner removes it"
                : "if another root pushed since the fetch, run sync again"));
          }
        }
      }
    } catch (GitAPIException | org.eclipse.jgit.api.errors.JGitInternalException e) {
      for (RefSpec s : specs) {
        byName.get(s.getSource().substring(Constants.R_HEADS.length())).put("pushed", "failed")
            .put("push_message", e.getMessage());
      }
      return false;
    }
    return ok;
  }
}
