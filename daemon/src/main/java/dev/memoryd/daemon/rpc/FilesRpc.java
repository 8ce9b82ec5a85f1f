package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Replies.unwrap;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.git.TreeChanges;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code files} group: which memory files exist ({@code files}) and which changed since a
 * commit ({@code changes}), so a client can mirror the list (as {@code memoryd mcp} does for its
 * resources) through the daemon instead of reading the repository.
 */
final class FilesRpc implements Namespace {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final ServingRoot svc;

    FilesRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "files";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("files", p -> {
            only(p);
            TreeChanges.Listing l = svc.reads().commits().memoryFiles();
            ObjectNode o = F.objectNode();
            o.put("commit", l.commit());
            ArrayNode files = o.putArray("files");
            l.paths().forEach(files::add);
            return o;
        });
        r.put("changes", p -> {
            only(p, "since");
            TreeChanges.Delta d = unwrap(svc.reads().commits().memoryFileChanges(str(p, "since", true)));
            ObjectNode o = F.objectNode();
            o.put("since", d.since());
            o.put("head", d.head());
            ArrayNode files = o.putArray("files");
            for (TreeChanges.Change c : d.changes()) {
                files.addObject().put("path", c.path()).put("change", c.kind().wire());
            }
            return o;
        });
        return r;
    }
}
