package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.branch.Branches;
import dev.memoryd.daemon.branch.Deleted;
import dev.memoryd.daemon.branch.Forked;
import dev.memoryd.daemon.branch.MergeConflict;
import dev.memoryd.daemon.branch.Merged;
import java.util.List;

/** The {@code branch} group's results as the wire's JSON: keys and their order are the protocol's. */
final class BranchReplies {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private BranchReplies() {}

    static ObjectNode forked(Forked f) {
        ObjectNode r = F.objectNode()
                .put("name", f.name())
                .put("head", f.head())
                .put("from", f.from())
                .put("from_commit", f.fromCommit())
                .put("event_id", f.eventId());
        if (f.link() == null) {
            r.putNull("link");
        } else {
            r.putObject("link")
                    .put("branch", f.link().branch())
                    .put("seq", f.link().seq())
                    .put("line_hash", f.link().lineHash());
        }
        return r;
    }

    static ObjectNode list(List<Branches.Info> branches) {
        ObjectNode o = F.objectNode();
        ArrayNode arr = o.putArray("branches");
        for (Branches.Info i : branches) {
            arr.addObject()
                    .put("name", i.name())
                    .put("head", i.head())
                    .put("checked_out", i.checkedOut())
                    .put("chain_lines", i.chainLines());
        }
        return o;
    }

    static ObjectNode deleted(Deleted d) {
        return F.objectNode()
                .put("name", d.name())
                .put("head", d.head())
                .put("retired_ref", d.retiredRef())
                .put("event_id", d.eventId())
                .put("chain_lines", d.chainLines());
    }

    static ObjectNode merged(Merged m) {
        ObjectNode r = F.objectNode();
        if (m instanceof Merged.Committed c) {
            return r.put("commit", c.commit()).put("changed", true).put("event_id", c.eventId());
        }
        if (m instanceof Merged.AlreadyMerged a) {
            return r.put("commit", a.commit()).put("changed", false).put("message", a.message());
        }
        Merged.Conflicted c = (Merged.Conflicted) m;
        conflicts(r, c.conflicts());
        return r.put("message", c.message());
    }

    /** {@code conflicts}: each region's file, name, and base, ours and theirs texts (null: absent on that side). */
    static void conflicts(ObjectNode r, List<MergeConflict> conflicts) {
        ArrayNode arr = r.putArray("conflicts");
        for (MergeConflict k : conflicts) {
            arr.addObject()
                    .put("path", k.path())
                    .put("section", k.section())
                    .put("base", k.base())
                    .put("ours", k.ours())
                    .put("theirs", k.theirs());
        }
    }
}
