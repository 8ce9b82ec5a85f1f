package dev.memoryd.daemon.sync;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.branch.Branches;
import dev.memoryd.daemon.branch.Forked;
import dev.memoryd.daemon.branch.Resolutions;
import dev.memoryd.daemon.branch.SyncMerged;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.ledger.Ledger;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.transport.RefSpec;

/**
 * {@code memoryd sync --remote <name>}: Git remotes are the distributed engine. One sync fetches
 * every branch of the remote, brings other replicas' ledger chains into the ledger directory,
 * merges each remote branch into the local one section by section ({@link Branches#syncMerge}),
 * starts a local branch (and this root's chain of it) for each remote branch it lacks, and
 * pushes every local branch the remote does not contain. Nothing is forced: a push the remote
 * refuses (another root pushed in between) is reported, and the next sync merges it.
 *
 * <p>Deletions: a branch deleted here is deleted on the remote, its retired ref pushed beside it,
 * when the remote's head holds no work the retired head lacks; a branch the remote no longer has
 * but holds as retired is deleted here under the same condition, unless it is checked out. Work
 * either side never saw always keeps the branch ({@link GitStore#workBeyond}).
 *
 * <p>Replicas: every root writes its own chains ({@code <branch>@<replica>} on a clone), so two
 * roots never append to one chain and a chain file is only ever extended; a merge links this
 * root's chain to the line the other side's head records, and {@code ledger verify} checks it.
 * Both roots need the same ledger key file to verify each other's lines.
 *
 * <p>Thread-safety: one sync at a time per root ({@code synchronized}); writes go on while a
 * sync runs, each merge being one declaration on its branch's writer.
 *
 * <p>This class fetches and merges; the steps after are {@link ReplicaSegments}' (other replicas'
 * chains), {@link SyncDeletions}' (deletions either way) and {@link SyncPush}'s.
 */
public final class Sync {
    /** https user and password from {@code ~/.netrc} (JGit does not run git's credential helpers). */
    static final org.eclipse.jgit.transport.CredentialsProvider CREDENTIALS =
            new org.eclipse.jgit.transport.NetRCCredentialsProvider();

    /** Where a sync keeps the remote's retired refs: {@code refs/memoryd/remote-deleted/<remote>/<branch>}. */
    private static final String RETIRED_THERE = "refs/memoryd/remote-deleted/";

    private final Path root;
    private final GitStore git;
    private final Ledger ledger;
    private final Branches branches;
    private final ReplicaSegments replicas;
    private final SyncDeletions deletions;
    private final SyncPush pushes;

    public Sync(Path root, GitStore git, Ledger ledger, Branches branches) {
        this.root = root;
        this.git = git;
        this.ledger = ledger;
        this.branches = branches;
        this.replicas = new ReplicaSegments(root, git, ledger, branches);
        this.deletions = new SyncDeletions(git, branches);
        this.pushes = new SyncPush(git);
    }

    /**
     * Fetches from {@code remote}, merges, pushes. {@code resolutions}: an array of
     * {@code {path, section, take, content?}} for the checked-out branch, or an object mapping a
     * branch name to such an array. The result lists each branch's merge outcome and push status;
     * {@code ok} is false when a branch has conflicts, a merge that would break a spec rule
     * ({@code spec_violation}: not merged, not pushed) or a push was refused.
     */
    public synchronized Outcome<SyncReport> run(String remote, SyncResolutions resolutions, String actor)
            throws IOException {
        if (remote == null || remote.isBlank()) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "sync needs a remote name (see 'git remote -v')");
        }
        if (git.repository().getConfig().getString("remote", remote, "url") == null) {
            return Outcome.fail(
                    ErrorReason.NOT_FOUND,
                    "no remote '" + remote + "' in " + root + "; add one with 'git -C " + root + " remote add " + remote
                            + " <url>'");
        }
        if (resolutions instanceof SyncResolutions.Malformed) {
            return Outcome.fail(
                    ErrorReason.INVALID_REQUEST,
                    "resolutions must be an array (for the checked-out branch)"
                            + " or an object of branch name -> array");
        }
        for (String b : resolutions.named(branches.checkedOutName())) {
            if (resolutions.forBranch(b, branches.checkedOutName()) instanceof Resolutions.Invalid bad) {
                return Outcome.fail(
                        ErrorReason.INVALID_REQUEST,
                        "resolutions for branch '" + b + "': " + bad.message() + "; nothing was changed");
            }
        }
        String prefix = Constants.R_REMOTES + remote + "/";
        String retiredPrefix = RETIRED_THERE + remote + "/";
        try (Git g = Git.wrap(git.repository())) {
            try {
                // The remote's retired refs too: they are how a deletion made on another root reaches this one.
                g.fetch()
                        .setRemote(remote)
                        .setCredentialsProvider(CREDENTIALS)
                        .setRefSpecs(
                                new RefSpec("+" + Constants.R_HEADS + "*:" + prefix + "*"),
                                new RefSpec("+" + GitStore.RETIRED_PREFIX + "*:" + retiredPrefix + "*"))
                        .setRemoveDeletedRefs(true)
                        .call();
            } catch (GitAPIException | org.eclipse.jgit.api.errors.JGitInternalException e) {
                return Outcome.fail(
                        ErrorReason.UNAVAILABLE,
                        "fetch from '" + remote + "' ("
                                + git.repository().getConfig().getString("remote", remote, "url") + ") failed: "
                                + e.getMessage() + "; nothing was changed");
            }
            Map<String, ObjectId> theirs = new TreeMap<>();
            for (Ref r : git.repository().getRefDatabase().getRefsByPrefix(prefix)) {
                String name = r.getName().substring(prefix.length());
                if (!name.equals(Constants.HEAD) && r.getObjectId() != null) {
                    theirs.put(name, r.getObjectId());
                }
            }
            String unmatched = unmatchedBranch(resolutions, theirs.keySet());
            if (unmatched != null) {
                return Outcome.fail(
                        ErrorReason.INVALID_REQUEST,
                        "resolutions for branch '" + unmatched + "' match nothing:"
                                + " the remote has no such branch to merge; nothing was merged");
            }
            Map<String, ObjectId> retiredThere = new TreeMap<>();
            for (Ref r : git.repository().getRefDatabase().getRefsByPrefix(retiredPrefix)) {
                retiredThere.put(r.getName().substring(retiredPrefix.length()), r.getObjectId());
            }
            // Local branches the remote dropped but holds as retired: another root deleted them.
            Map<String, ObjectId> droppedThere = new TreeMap<>();
            for (Map.Entry<String, ObjectId> e : retiredThere.entrySet()) {
                if (!theirs.containsKey(e.getKey()) && branches.exists(e.getKey())) {
                    droppedThere.put(e.getKey(), e.getValue());
                }
            }
            Map<String, ObjectId> materialized = new TreeMap<>(theirs);
            materialized.putAll(droppedThere); // the deleting root's last lines, its branch_delete among them
            int chainFiles = replicas.materialize(materialized);
            List<SyncRow> rows = new ArrayList<>();
            Map<String, SyncRow> byName = new LinkedHashMap<>();
            boolean ok = true;
            List<SyncDeletions.Retirement> retirements = new ArrayList<>();
            for (Map.Entry<String, ObjectId> e : theirs.entrySet()) {
                Ref retiredHere = git.repository().getRefDatabase().exactRef(GitStore.RETIRED_PREFIX + e.getKey());
                SyncRow row = retiredHere != null && !branches.exists(e.getKey())
                        ? deletions.deletedHere(
                                e.getKey(),
                                e.getValue(),
                                retiredHere.getObjectId(),
                                retiredThere.containsKey(e.getKey()),
                                retirements)
                        : mergeOne(e.getKey(), e.getValue(), remote, resolutionsFor(resolutions, e.getKey()), actor);
                ok &= !SyncRow.waits(row.outcome);
                rows.add(row);
                byName.put(e.getKey(), row);
            }
            for (Map.Entry<String, ObjectId> e : droppedThere.entrySet()) {
                SyncRow row = deletions.deletedThere(e.getKey(), e.getValue(), actor);
                ok &= !(row.outcome instanceof SyncOutcome.Failed);
                rows.add(row);
                byName.put(e.getKey(), row);
            }
            ledger.refresh(c -> !branches.ours(c));
            ok &= pushes.push(g, remote, prefix, rows, byName);
            ok &= deletions.retireOnRemote(remote, retirements, byName);
            return Outcome.ok(new SyncReport(
                    remote,
                    theirs.size(),
                    chainFiles,
                    rows.stream().map(SyncRow::row).toList(),
                    ok));
        }
    }

    /** A branch that resolutions are given for but the remote does not have, or null. */
    private String unmatchedBranch(SyncResolutions all, java.util.Set<String> remoteBranches) {
        return all.named(branches.checkedOutName()).stream()
                .filter(b -> !remoteBranches.contains(b))
                .findFirst()
                .orElse(null);
    }

    /** An array is the checked-out branch's; an object maps branch names to arrays. */
    private Resolutions resolutionsFor(SyncResolutions all, String branch) {
        return all.forBranch(branch, branches.checkedOutName());
    }

    private SyncRow mergeOne(String name, ObjectId theirs, String remote, Resolutions resolutions, String actor)
            throws IOException {
        String from = remote + "/" + name;
        if (branches.exists(name)) {
            Outcome<SyncMerged> o = branches.syncMerge(name, theirs, from, resolutions, actor);
            return new SyncRow(
                    name,
                    o instanceof Outcome.Ok<SyncMerged> k
                            ? new SyncOutcome.Merge(k.value())
                            : new SyncOutcome.Failed(
                                    ((Outcome.Failed<SyncMerged>) o).failure().message(), null));
        }
        if (name.startsWith("proposals/")) {
            // Proposal branches carry no chain: they change only through proposals.accept on their base.
            org.eclipse.jgit.lib.RefUpdate u = git.repository().updateRef(Constants.R_HEADS + name);
            u.setNewObjectId(theirs);
            u.setExpectedOldObjectId(ObjectId.zeroId());
            org.eclipse.jgit.lib.RefUpdate.Result res = u.update();
            return new SyncRow(
                    name,
                    new SyncOutcome.Created(theirs.name(), null, res.name().toLowerCase(java.util.Locale.ROOT)));
        }
        Outcome<Forked> o = branches.create(name, theirs.name(), actor);
        if (o instanceof Outcome.Failed<Forked> f) {
            return new SyncRow(name, new SyncOutcome.Failed(f.failure().message(), null));
        }
        Forked v = ((Outcome.Ok<Forked>) o).value();
        return new SyncRow(name, new SyncOutcome.Created(v.head(), v.eventId(), null));
    }
}
