package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Replies.unwrap;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
            return unwrap(svc.sync(str(p, "remote", true), p.get("resolutions"), str(p, "actor", false)));
        });
        r.put("branch.create", p -> {
            Branches bs = svc.branches();
            only(p, "name", "from", "actor");
            return unwrap(bs.create(str(p, "name", true), str(p, "from", false), str(p, "actor", false)));
        });
        r.put("branch.list", p -> {
            Branches bs = svc.branches();
            only(p);
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            ArrayNode arr = o.putArray("branches");
            for (Branches.Info i : bs.list()) {
                arr.addObject()
                        .put("name", i.name())
                        .put("head", i.head())
                        .put("checked_out", i.checkedOut())
                        .put("chain_lines", i.chainLines());
            }
            return o;
        });
        r.put("branch.delete", p -> {
            Branches bs = svc.branches();
            only(p, "name", "actor");
            return unwrap(bs.delete(str(p, "name", true), str(p, "actor", false)));
        });
        r.put("branch.merge", p -> {
            Branches bs = svc.branches();
            only(p, "from", "into", "resolutions", "actor");
            return unwrap(bs.merge(
                    str(p, "from", true), str(p, "into", false), p.get("resolutions"), str(p, "actor", false)));
        });
        return r;
    }
}
