package dev.memoryd.daemon.sync;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.branch.Branches;
import dev.memoryd.daemon.branch.Deleted;
import dev.memoryd.daemon.branch.Forked;
import dev.memoryd.daemon.branch.Resolutions;
import dev.memoryd.daemon.branch.SyncMerged;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Ledger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteRefUpdate;

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
 */
public final class Sync {
    /** https user and password from {@code ~/.netrc} (JGit does not run git's credential helpers). */
    private static final org.eclipse.jgit.transport.CredentialsProvider CREDENTIALS =
            new org.eclipse.jgit.transport.NetRCCredentialsProvider();

    /** The push of a branch deleted on the remote: none, as the deletion stands there. */
    private static final SyncReport.Push NOT_PUSHED_BACK =
            new SyncReport.Push("not_pushed", "not pushed back: the deletion stands on the remote");
    /** Where a sync keeps the remote's retired refs: {@code refs/memoryd/remote-deleted/<remote>/<branch>}. */
    private static final String RETIRED_THERE = "refs/memoryd/remote-deleted/";
    /** How many commit ids a row names at most. */
    private static final int SHOWN = 5;

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
                                new RefSpec("+" + Branches.DELETED_PREFIX + "*:" + retiredPrefix + "*"))
                        .setRemoveDeletedRefs(true)
                        .call();
            } catch (GitAPIException | org.eclipse.jgit.api.errors.JGitInternalException e) {
                return Outcome.fail(
                        ErrorReason.UNAVAILABLE,
                        "fetch from '" + remote + "' failed: " + e.getMessage() + "; nothing was changed");
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
            int chainFiles = materialize(materialized);
            List<Draft> rows = new ArrayList<>();
            Map<String, Draft> byName = new LinkedHashMap<>();
            boolean ok = true;
            List<Retirement> retirements = new ArrayList<>();
            for (Map.Entry<String, ObjectId> e : theirs.entrySet()) {
                Ref retiredHere = git.repository().getRefDatabase().exactRef(Branches.DELETED_PREFIX + e.getKey());
                Draft row = retiredHere != null && !branches.exists(e.getKey())
                        ? deletedHere(
                                e.getKey(),
                                e.getValue(),
                                retiredHere.getObjectId(),
                                retiredThere.containsKey(e.getKey()),
                                retirements)
                        : mergeOne(e.getKey(), e.getValue(), remote, resolutionsFor(resolutions, e.getKey()), actor);
                ok &= !waits(row.outcome);
                rows.add(row);
                byName.put(e.getKey(), row);
            }
            for (Map.Entry<String, ObjectId> e : droppedThere.entrySet()) {
                Draft row = deletedThere(e.getKey(), e.getValue(), actor);
                ok &= !(row.outcome instanceof SyncOutcome.Failed);
                rows.add(row);
                byName.put(e.getKey(), row);
            }
            ledger.refresh(c -> !branches.ours(c));
            ok &= push(g, remote, prefix, rows, byName);
            ok &= retireOnRemote(remote, retirements, byName);
            return Outcome.ok(new SyncReport(
                    remote,
                    theirs.size(),
                    chainFiles,
                    rows.stream().map(Draft::row).toList(),
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

    private Draft mergeOne(String name, ObjectId theirs, String remote, Resolutions resolutions, String actor)
            throws IOException {
        String from = remote + "/" + name;
        if (branches.exists(name)) {
            Outcome<SyncMerged> o = branches.syncMerge(name, theirs, from, resolutions, actor);
            return new Draft(
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
            return new Draft(
                    name,
                    new SyncOutcome.Created(theirs.name(), null, res.name().toLowerCase(java.util.Locale.ROOT)));
        }
        Outcome<Forked> o = branches.create(name, theirs.name(), actor);
        if (o instanceof Outcome.Failed<Forked> f) {
            return new Draft(name, new SyncOutcome.Failed(f.failure().message(), null));
        }
        Forked v = ((Outcome.Ok<Forked>) o).value();
        return new Draft(name, new SyncOutcome.Created(v.head(), v.eventId(), null));
    }

    /** A branch deleted here that the remote still has at {@code remoteHead}, with nothing there this root lacks. */
    private record Retirement(String name, ObjectId remoteHead, boolean remoteHasRecord) {}

    /**
     * The row of a remote branch this root deleted ({@code outcome: deleted_here}). When the
     * remote's head holds no work the retired head lacks ({@link GitStore#workBeyond}), the branch
     * is queued to be deleted on the remote; otherwise the row's {@code remote_kept} says why it stays.
     */
    private Draft deletedHere(
            String name, ObjectId remoteHead, ObjectId retired, boolean remoteHasRecord, List<Retirement> retirements)
            throws IOException {
        Draft row = new Draft(name, new SyncOutcome.DeletedHere("deleted on this root; not brought back"));
        List<ObjectId> work = git.workBeyond(retired, remoteHead, SHOWN);
        if (work.isEmpty()) {
            retirements.add(new Retirement(name, remoteHead, remoteHasRecord));
        } else {
            row.retirement = new SyncReport.Retirement(
                    false,
                    "it has commits this root never saw: " + shown(work)
                            + "; the remote keeps it and other roots keep syncing it");
        }
        return row;
    }

    /**
     * The row of a local branch the remote no longer has but holds as retired at {@code retired}
     * (another root deleted it). Deleted here as {@code branch.delete} does ({@code deleted_by_remote})
     * when it holds no work {@code retired} lacks; kept and pushed back when it does
     * ({@code delete_overridden}); kept and not pushed when it is the checked-out branch
     * ({@code kept_checked_out}).
     */
    private Draft deletedThere(String name, ObjectId retired, String actor) throws IOException {
        String there = retired.name();
        List<ObjectId> work = git.workBeyond(retired, git.branchHead(name).orElse(git.refNow()), SHOWN);
        if (work.isEmpty() && name.equals(branches.checkedOutName())) {
            Draft row = new Draft(
                    name,
                    new SyncOutcome.KeptCheckedOut(
                            there,
                            "deleted on the remote, but checked out here: kept;"
                                    + " serve another branch and sync again to delete it here"));
            row.push = NOT_PUSHED_BACK;
            return row;
        }
        Outcome<Deleted> o = work.isEmpty() ? branches.delete(name, actor, retired) : null;
        if (o instanceof Outcome.Ok<Deleted> k) {
            return new Draft(
                    name,
                    new SyncOutcome.DeletedByRemote(
                            there,
                            "deleted on the remote; deleted here too",
                            k.value().head(),
                            k.value().eventId(),
                            k.value().retiredRef()));
        }
        if (o instanceof Outcome.Failed<Deleted> f && f.failure().reason() != ErrorReason.CONFLICT) {
            Draft row = new Draft(
                    name,
                    new SyncOutcome.Failed(
                            "deleted on the remote, not here: " + f.failure().message(), there));
            row.push = NOT_PUSHED_BACK;
            return row;
        }
        // Work the deleting root never saw wins over its deletion: the branch stays and is pushed back.
        String why = o == null
                ? "it has commits the deletion never saw: " + shown(work)
                : ((Outcome.Failed<Deleted>) o).failure().message();
        return new Draft(
                name,
                new SyncOutcome.DeleteOverridden(
                        there, "deleted on the remote, but kept here and pushed" + " back: " + why));
    }

    /**
     * Deletes each retired branch on the remote: first pushes this root's retired ref (unless the
     * remote already has one) so other roots learn of the deletion, then deletes the branch with
     * the remote head it was checked at as the expected old value, so a push made since is never
     * deleted. Records {@code remote_deleted: true}, or {@code remote_kept} with the refusal.
     */
    private boolean retireOnRemote(String remote, List<Retirement> rs, Map<String, Draft> byName) throws IOException {
        if (rs.isEmpty()) {
            return true;
        }
        Map<String, String> refused = new TreeMap<>();
        List<RemoteRefUpdate> records = new ArrayList<>();
        for (Retirement r : rs) {
            if (!r.remoteHasRecord()) {
                String ref = Branches.DELETED_PREFIX + r.name();
                records.add(new RemoteRefUpdate(git.repository(), ref, ref, false, null, null));
            }
        }
        try (org.eclipse.jgit.transport.Transport t =
                org.eclipse.jgit.transport.Transport.open(git.repository(), remote)) {
            t.setCredentialsProvider(CREDENTIALS);
            if (!records.isEmpty()) {
                for (RemoteRefUpdate u : t.push(org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE, records)
                        .getRemoteUpdates()) {
                    if (!pushed(u)) {
                        refused.put(
                                u.getRemoteName().substring(Branches.DELETED_PREFIX.length()),
                                "its retired ref was refused (" + status(u) + ")");
                    }
                }
            }
            List<RemoteRefUpdate> deletes = new ArrayList<>();
            for (Retirement r : rs) {
                if (!refused.containsKey(r.name())) {
                    deletes.add(new RemoteRefUpdate(
                            git.repository(),
                            (String) null,
                            Constants.R_HEADS + r.name(),
                            false,
                            null,
                            r.remoteHead()));
                }
            }
            if (!deletes.isEmpty()) {
                for (RemoteRefUpdate u : t.push(org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE, deletes)
                        .getRemoteUpdates()) {
                    String name = u.getRemoteName().substring(Constants.R_HEADS.length());
                    if (pushed(u)) {
                        byName.get(name).retirement = new SyncReport.Retirement(true, null);
                    } else {
                        refused.put(name, "the remote refused the deletion (" + status(u) + ")");
                    }
                }
            }
        } catch (java.net.URISyntaxException
                | org.eclipse.jgit.errors.TransportException
                | org.eclipse.jgit.errors.NotSupportedException e) {
            for (Retirement r : rs) {
                refused.putIfAbsent(r.name(), "the deletion could not be pushed (" + e.getMessage() + ")");
            }
        }
        refused.forEach(
                (name, why) -> byName.get(name).retirement = new SyncReport.Retirement(false, why + "; sync again"));
        return refused.isEmpty();
    }

    /** At most {@link #SHOWN} abbreviated ids, with an ellipsis when there may be more. */
    private static String shown(List<ObjectId> ids) {
        return GitStore.shortIds(ids) + (ids.size() == SHOWN ? ", ..." : "");
    }

    private static boolean pushed(RemoteRefUpdate u) {
        return u.getStatus() == RemoteRefUpdate.Status.OK || u.getStatus() == RemoteRefUpdate.Status.UP_TO_DATE;
    }

    private static String status(RemoteRefUpdate u) {
        return u.getStatus().name().toLowerCase(java.util.Locale.ROOT)
                + (u.getMessage() == null ? "" : ": " + u.getMessage());
    }

    /** Whether a branch waits for the user (conflicts, a spec rule) or failed: not pushed, and the sync is not ok. */
    private static boolean waits(SyncOutcome o) {
        return o instanceof SyncOutcome.Failed || (o instanceof SyncOutcome.Merge m && m.unmerged());
    }

    /** One branch's row while the sync is under way: its outcome first, then its push, then its retirement. */
    private static final class Draft {
        final String branch;
        final SyncOutcome outcome;
        SyncReport.Push push;
        SyncReport.Retirement retirement;

        Draft(String branch, SyncOutcome outcome) {
            this.branch = branch;
            this.outcome = outcome;
        }

        SyncReport.Row row() {
            return new SyncReport.Row(branch, outcome, push, retirement);
        }
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
            if (disk.isPresent()
                    && (disk.get().length >= t.length
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
    private boolean push(Git g, String remote, String prefix, List<Draft> rows, Map<String, Draft> byName)
            throws IOException {
        List<RefSpec> specs = new ArrayList<>();
        for (Map.Entry<String, ObjectId> e : git.branches().entrySet()) {
            Ref tracking = git.repository().getRefDatabase().exactRef(prefix + e.getKey());
            Draft row = byName.get(e.getKey());
            if (row == null) {
                row = new Draft(e.getKey(), new SyncOutcome.LocalOnly());
                rows.add(row);
                byName.put(e.getKey(), row);
            }
            if (row.push != null) {
                continue; // decided already (a branch deleted on the remote, kept here)
            }
            if (tracking != null && git.isAncestor(e.getValue(), tracking.getObjectId())) {
                row.push = new SyncReport.Push("up_to_date", null); // the remote holds it (or a merge of it)
                continue;
            }
            if (waits(row.outcome)) {
                SyncMerged merged = row.outcome instanceof SyncOutcome.Merge m ? m.merged() : null;
                String next = merged instanceof SyncMerged.Conflicted
                        ? "; sync again with resolutions for the conflicts"
                        : merged instanceof SyncMerged.SpecViolation
                                ? "; change one side so the rule holds (see message), then sync again"
                                : "";
                row.push =
                        new SyncReport.Push("not_pushed", "not pushed: the remote's commits are not merged yet" + next);
                continue;
            }
            specs.add(new RefSpec(Constants.R_HEADS + e.getKey() + ":" + Constants.R_HEADS + e.getKey()));
        }
        if (specs.isEmpty()) {
            return true;
        }
        boolean ok = true;
        try {
            for (PushResult pr : g.push()
                    .setRemote(remote)
                    .setCredentialsProvider(CREDENTIALS)
                    .setRefSpecs(specs)
                    .call()) {
                for (RemoteRefUpdate u : pr.getRemoteUpdates()) {
                    String name = u.getSrcRef().substring(Constants.R_HEADS.length());
                    String status = u.getStatus().name().toLowerCase(java.util.Locale.ROOT);
                    boolean good = u.getStatus() == RemoteRefUpdate.Status.OK
                            || u.getStatus() == RemoteRefUpdate.Status.UP_TO_DATE;
                    ok &= good;
                    byName.get(name).push = good
                            ? new SyncReport.Push("ok", null)
                            : new SyncReport.Push(
                                    status,
                                    "the remote refused " + name + " (" + status
                                            + (u.getMessage() == null ? "" : ": " + u.getMessage()) + "); "
                                            + (u.getMessage() != null
                                                            && u.getMessage().contains("lock")
                                                    ? "a ref lock file on the remote blocks it (left by a push that was killed?): its owner removes it"
                                                    : "if another root pushed since the fetch, run sync again"));
                }
            }
        } catch (GitAPIException | org.eclipse.jgit.api.errors.JGitInternalException e) {
            for (RefSpec s : specs) {
                byName.get(s.getSource().substring(Constants.R_HEADS.length())).push =
                        new SyncReport.Push("failed", e.getMessage());
            }
            return false;
        }
        return ok;
    }
}
