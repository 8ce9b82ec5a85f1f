package dev.memoryd.daemon.sync;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.branch.Branches;
import dev.memoryd.daemon.branch.Deleted;
import dev.memoryd.daemon.git.GitStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.RemoteRefUpdate;

/**
 * A sync's deletions, each way: a branch deleted here that the remote still has is deleted on the
 * remote (its retired ref pushed beside it) when the remote's head holds no work the retired head
 * lacks; a branch the remote no longer has but holds as retired is deleted here under the same
 * condition, unless it is checked out. Work either side never saw always keeps the branch
 * ({@link GitStore#workBeyond}).
 *
 * <p>Not thread-safe: used by one {@link Sync} run at a time. A deletion on the remote names the
 * head it was checked at as the expected old value, so a push made since is never deleted.
 */
final class SyncDeletions {
    /** The push of a branch deleted on the remote: none, as the deletion stands there. */
    private static final SyncReport.Push NOT_PUSHED_BACK =
            new SyncReport.Push("not_pushed", "not pushed back: the deletion stands on the remote");
    /** How many commit ids a row names at most. */
    private static final int SHOWN = 5;

    private final GitStore git;
    private final Branches branches;

    SyncDeletions(GitStore git, Branches branches) {
        this.git = git;
        this.branches = branches;
    }

    /** A branch deleted here that the remote still has at {@code remoteHead}, with nothing there this root lacks. */
    record Retirement(String name, ObjectId remoteHead, boolean remoteHasRecord) {}

    /**
     * The row of a remote branch this root deleted ({@code outcome: deleted_here}). When the
     * remote's head holds no work the retired head lacks ({@link GitStore#workBeyond}), the branch
     * is queued to be deleted on the remote; otherwise the row's {@code remote_kept} says why it stays.
     */
    SyncRow deletedHere(
            String name, ObjectId remoteHead, ObjectId retired, boolean remoteHasRecord, List<Retirement> retirements)
            throws IOException {
        SyncRow row = new SyncRow(name, new SyncOutcome.DeletedHere("deleted on this root; not brought back"));
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
    SyncRow deletedThere(String name, ObjectId retired, String actor) throws IOException {
        String there = retired.name();
        List<ObjectId> work = git.workBeyond(retired, git.branchHead(name).orElse(git.refNow()), SHOWN);
        if (work.isEmpty() && name.equals(branches.checkedOutName())) {
            SyncRow row = new SyncRow(
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
            return new SyncRow(
                    name,
                    new SyncOutcome.DeletedByRemote(
                            there,
                            "deleted on the remote; deleted here too",
                            k.value().head(),
                            k.value().eventId(),
                            k.value().retiredRef()));
        }
        if (o instanceof Outcome.Failed<Deleted> f && f.failure().reason() != ErrorReason.CONFLICT) {
            SyncRow row = new SyncRow(
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
        return new SyncRow(
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
    boolean retireOnRemote(String remote, List<Retirement> rs, Map<String, SyncRow> byName) throws IOException {
        if (rs.isEmpty()) {
            return true;
        }
        Map<String, String> refused = new TreeMap<>();
        List<RemoteRefUpdate> records = new ArrayList<>();
        for (Retirement r : rs) {
            if (!r.remoteHasRecord()) {
                String ref = GitStore.RETIRED_PREFIX + r.name();
                records.add(new RemoteRefUpdate(git.repository(), ref, ref, false, null, null));
            }
        }
        try (org.eclipse.jgit.transport.Transport t =
                org.eclipse.jgit.transport.Transport.open(git.repository(), remote)) {
            t.setCredentialsProvider(Sync.CREDENTIALS);
            if (!records.isEmpty()) {
                for (RemoteRefUpdate u : t.push(org.eclipse.jgit.lib.NullProgressMonitor.INSTANCE, records)
                        .getRemoteUpdates()) {
                    if (!pushed(u)) {
                        refused.put(
                                u.getRemoteName().substring(GitStore.RETIRED_PREFIX.length()),
                                "its retired ref was refused (" + status(u) + "); sync again");
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
                    } else if (u.getMessage() != null && u.getMessage().contains("deletion prohibited")) {
                        // receive.denyDeletes: no later sync gets through; only the remote's owner can
                        refused.put(
                                name,
                                "the remote refused the deletion (" + status(u) + "): it refuses every deletion"
                                        + " (receive.denyDeletes); its owner deletes " + name
                                        + " there, or allows deletions and you sync again");
                    } else {
                        refused.put(name, "the remote refused the deletion (" + status(u) + "); sync again");
                    }
                }
            }
        } catch (java.net.URISyntaxException
                | org.eclipse.jgit.errors.TransportException
                | org.eclipse.jgit.errors.NotSupportedException e) {
            for (Retirement r : rs) {
                refused.putIfAbsent(r.name(), "the deletion could not be pushed (" + e.getMessage() + "); sync again");
            }
        }
        refused.forEach((name, why) -> byName.get(name).retirement = new SyncReport.Retirement(false, why));
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
}
