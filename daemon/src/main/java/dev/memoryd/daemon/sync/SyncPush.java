package dev.memoryd.daemon.sync;

import dev.memoryd.daemon.branch.SyncMerged;
import dev.memoryd.daemon.git.GitStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteRefUpdate;

/**
 * A sync's push: every local branch the remote lacks or is behind on, except one that waits for
 * the user (conflicts, a spec rule) or whose push a deletion decided. Nothing is forced: a push the
 * remote refuses is reported on its row, and the next sync merges what it lacked. A branch a
 * remote on this machine has checked out is not pushed ({@link CheckedOutRemote}).
 *
 * <p>Not thread-safe: used by one {@link Sync} run at a time.
 */
final class SyncPush {
    private final GitStore git;

    SyncPush(GitStore git) {
        this.git = git;
    }

    /** Pushes every local branch the remote lacks or is behind on; records each status on its row. */
    boolean push(Git g, String remote, String prefix, List<SyncRow> rows, Map<String, SyncRow> byName)
            throws IOException {
        List<RefSpec> specs = new ArrayList<>();
        for (Map.Entry<String, ObjectId> e : git.branches().entrySet()) {
            Ref tracking = git.repository().getRefDatabase().exactRef(prefix + e.getKey());
            SyncRow row = byName.get(e.getKey());
            if (row == null) {
                row = new SyncRow(e.getKey(), new SyncOutcome.LocalOnly());
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
            if (SyncRow.waits(row.outcome)) {
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
        boolean ok = true;
        Optional<CheckedOutRemote> checkedOut = CheckedOutRemote.of(
                pushUrl(remote), git.repository().getWorkTree().toPath());
        if (checkedOut.isPresent()) {
            RefSpec held = new RefSpec(Constants.R_HEADS + checkedOut.get().branch() + ":" + Constants.R_HEADS
                    + checkedOut.get().branch());
            if (specs.remove(held)) {
                byName.get(checkedOut.get().branch()).push = new SyncReport.Push(
                        "rejected_checked_out", checkedOut.get().refusal());
                ok = false;
            }
        }
        if (specs.isEmpty()) {
            return ok;
        }
        try {
            for (PushResult pr : g.push()
                    .setRemote(remote)
                    .setCredentialsProvider(Sync.CREDENTIALS)
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

    /** Where a push to {@code remote} goes: its {@code pushurl}, else its {@code url}. */
    private String pushUrl(String remote) {
        org.eclipse.jgit.lib.StoredConfig c = git.repository().getConfig();
        String push = c.getString("remote", remote, "pushurl");
        return push != null ? push : c.getString("remote", remote, "url");
    }
}
