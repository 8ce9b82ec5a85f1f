package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.branch.SyncMerged;
import dev.memoryd.daemon.sync.SyncOutcome;
import dev.memoryd.daemon.sync.SyncReport;

/**
 * {@code sync}'s result as the wire's JSON: keys and their order are the protocol's. A row's keys
 * are its branch, what the sync did (in the order each outcome has always listed them), its push,
 * then its retirement on the remote.
 */
final class SyncReplies {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private SyncReplies() {}

    static ObjectNode report(SyncReport s) {
        ObjectNode out = F.objectNode()
                .put("remote", s.remote())
                .put("fetched_branches", s.fetchedBranches())
                .put("chain_files", s.chainFiles());
        ArrayNode rows = out.putArray("branches");
        s.branches().forEach(r -> rows.add(row(r)));
        return out.put("ok", s.ok());
    }

    private static ObjectNode row(SyncReport.Row row) {
        ObjectNode r = F.objectNode().put("branch", row.branch());
        outcome(r, row.outcome());
        SyncReport.Push p = row.push();
        if (p != null) {
            r.put("pushed", p.status());
            if (!p.status().equals("ok") && !p.status().equals("up_to_date")) {
                r.put("push_message", p.message());
            }
        }
        SyncReport.Retirement t = row.retirement();
        if (t != null && t.deleted()) {
            r.put("remote_deleted", true);
        } else if (t != null) {
            r.put("remote_kept", t.kept());
        }
        return r;
    }

    private static void outcome(ObjectNode r, SyncOutcome o) {
        if (o instanceof SyncOutcome.Merge m) {
            merged(r, m.merged());
        } else if (o instanceof SyncOutcome.Created c) {
            r.put("outcome", "created").put("commit", c.commit());
            if (c.eventId() != null) {
                r.put("event_id", c.eventId());
            } else {
                r.put("ref_update", c.refUpdate());
            }
        } else if (o instanceof SyncOutcome.Failed f) {
            r.put("outcome", "error").put("error", f.error());
            if (f.retiredThere() != null) {
                r.put("retired_there", f.retiredThere());
            }
        } else if (o instanceof SyncOutcome.DeletedHere d) {
            r.put("outcome", "deleted_here").put("message", d.message());
        } else if (o instanceof SyncOutcome.KeptCheckedOut k) {
            r.put("retired_there", k.retiredThere())
                    .put("outcome", "kept_checked_out")
                    .put("message", k.message());
        } else if (o instanceof SyncOutcome.DeletedByRemote d) {
            r.put("retired_there", d.retiredThere())
                    .put("outcome", "deleted_by_remote")
                    .put("message", d.message())
                    .put("commit", d.commit())
                    .put("event_id", d.eventId())
                    .put("retired_ref", d.retiredRef());
        } else if (o instanceof SyncOutcome.DeleteOverridden d) {
            r.put("retired_there", d.retiredThere())
                    .put("outcome", "delete_overridden")
                    .put("message", d.message());
        } else if (o instanceof SyncOutcome.LocalOnly) {
            r.put("outcome", "local_only");
        }
    }

    private static void merged(ObjectNode r, SyncMerged m) {
        if (m instanceof SyncMerged.Skipped k) {
            r.put("outcome", "skipped").put("message", k.message());
        } else if (m instanceof SyncMerged.UpToDate) {
            r.put("outcome", "up_to_date");
        } else if (m instanceof SyncMerged.Chains c && c.ahead()) {
            r.put("commit", c.commit()).put("outcome", "chains");
        } else if (m instanceof SyncMerged.Chains c) {
            r.put("outcome", "chains").put("commit", c.commit());
        } else if (m instanceof SyncMerged.Committed c) {
            r.put("outcome", "merged").put("commit", c.commit()).put("event_id", c.eventId());
        } else if (m instanceof SyncMerged.Conflicted c) {
            BranchReplies.conflicts(r, c.conflicts());
            r.put("outcome", "conflict").put("message", c.message());
        } else if (m instanceof SyncMerged.SpecViolation v) {
            ObjectNode o = r.put("outcome", "spec_violation")
                    .put("message", v.message())
                    .putObject("violation");
            v.violation().forEach(o::put);
        }
    }
}
