package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Replies.unwrap;

import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.branch.Branches;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code branch} group: branches, section-level merge, and {@code sync} with Git remotes. */
final class BranchRpc implements Namespace {
    private final ServingRoot svc;

    BranchRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "branch";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("sync", p -> {
            only(p, "remote", "resolutions", "actor");
            return SyncReplies.report(unwrap(svc.sync(
                    str(p, "remote", true), ResolutionParams.sync(p.get("resolutions")), str(p, "actor", false))));
        });
        r.put("branch.create", p -> {
            Branches bs = svc.branches();
            only(p, "name", "from", "actor");
            return BranchReplies.forked(
                    unwrap(bs.create(str(p, "name", true), str(p, "from", false), str(p, "actor", false))));
        });
        r.put("branch.list", p -> {
            Branches bs = svc.branches();
            only(p);
            return BranchReplies.list(bs.list());
        });
        r.put("branch.delete", p -> {
            Branches bs = svc.branches();
            only(p, "name", "actor");
            return BranchReplies.deleted(unwrap(bs.delete(str(p, "name", true), str(p, "actor", false))));
        });
        r.put("branch.merge", p -> {
            Branches bs = svc.branches();
            only(p, "from", "into", "resolutions", "actor");
            return BranchReplies.merged(unwrap(bs.merge(
                    str(p, "from", true),
                    str(p, "into", false),
                    ResolutionParams.merge(p.get("resolutions")),
                    str(p, "actor", false))));
        });
        return r;
    }
}
