package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.refs.AddedRef;
import dev.memoryd.daemon.refs.NewRef;
import dev.memoryd.daemon.refs.Reconciled;
import dev.memoryd.daemon.refs.RefEntry;
import dev.memoryd.daemon.refs.RefStore;
import dev.memoryd.daemon.refs.Repinned;
import dev.memoryd.daemon.refs.Retired;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@code refs} group: the {@code refs.*} socket methods, parameter checks and one
 * {@link RefStore} call each, and the mapping of its records to the results' JSON.
 *
 * <ul>
 * <li>{@code refs.add {path, repo?, section?, placed_on, actor?}}: placed_on is a string or an array of strings</li>
 * <li>{@code refs.reconcile {actor?}}</li>
 * <li>{@code refs.repin {id, actor?, note?}} and {@code refs.retire {id, actor?, note?}}: id is the
 *     reference's id or its open drift item's id</li>
 * <li>{@code refs.list {all?}}</li>
 * </ul>
 */
final class RefsRpc implements Namespace {
    private static final List<String> METHODS =
            List.of("refs.add", "refs.reconcile", "refs.repin", "refs.retire", "refs.list");

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final ServingRoot svc;

    RefsRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "refs";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        for (String m : METHODS) {
            r.put(m, p -> {
                java.util.Optional<dev.memoryd.daemon.api.Failure> onPeer = onPeer(m, p);
                if (onPeer.isPresent()) {
                    throw new BadRequest(onPeer.get());
                }
                return Replies.unwrap(call(svc.refs(), m, p));
            });
        }
        return r;
    }

    /**
     * {@code prohibited} naming the peer when a reference write names a peer's file, slice or
     * reference: the file of {@code refs.add} (in the served root's repository), what it is placed
     * on, the id {@code refs.repin} and {@code refs.retire} change.
     */
    private java.util.Optional<dev.memoryd.daemon.api.Failure> onPeer(String method, ObjectNode p) {
        List<String> refs = new ArrayList<>();
        if (method.equals("refs.add")) {
            if (!p.hasNonNull("repo")) {
                refs.add(p.path("path").asText(null));
            }
            JsonNode on = p.get("placed_on");
            if (on != null && on.isTextual()) {
                refs.add(on.asText());
            } else if (on != null && on.isArray()) {
                on.forEach(x -> refs.add(x.isTextual() ? x.asText() : null));
            }
        } else if (method.equals("refs.repin") || method.equals("refs.retire")) {
            refs.add(p.path("id").asText(null));
        }
        for (String ref : refs) {
            java.util.Optional<dev.memoryd.daemon.api.Failure> f = svc.peers().refuseWrite(ref, method);
            if (f.isPresent()) {
                return f;
            }
        }
        return java.util.Optional.empty();
    }

    static Outcome<ObjectNode> call(RefStore refs, String method, ObjectNode p) throws IOException {
        try {
            switch (method) {
                case "refs.add": {
                    only(p, "path", "repo", "section", "placed_on", "actor");
                    NewRef req = new NewRef(
                            file(p, "path", true),
                            file(p, "repo", false),
                            str(p, "section", false),
                            placedOn(p),
                            str(p, "actor", false));
                    return map(refs.add(req), RefsRpc::added);
                }
                case "refs.reconcile":
                    only(p, "actor");
                    return map(refs.reconcile(str(p, "actor", false)), RefsRpc::reconciled);
                case "refs.repin":
                    only(p, "id", "actor", "note");
                    return map(
                            refs.repin(str(p, "id", true), str(p, "actor", false), str(p, "note", false)),
                            RefsRpc::repinned);
                case "refs.retire":
                    only(p, "id", "actor", "note");
                    return map(
                            refs.retire(str(p, "id", true), str(p, "actor", false), str(p, "note", false)),
                            RefsRpc::retired);
                case "refs.list": {
                    only(p, "all");
                    JsonNode all = p.get("all");
                    if (all != null && !all.isBoolean()) {
                        throw new Bad("parameter 'all' must be a boolean");
                    }
                    return Outcome.ok(listed(refs.list(all != null && all.asBoolean())));
                }
                default:
                    throw new IllegalArgumentException("not a refs method: " + method);
            }
        } catch (Bad e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
        }
    }

    private static <T> Outcome<ObjectNode> map(Outcome<T> o, Function<T, ObjectNode> json) {
        if (o instanceof Outcome.Failed<T> f) {
            return Outcome.fail(f.failure());
        }
        return Outcome.ok(json.apply(((Outcome.Ok<T>) o).value()));
    }

    // The results' wire form (PROTOCOL.md): keys in this order, absent values as null.

    private static ObjectNode added(AddedRef a) {
        return F.objectNode()
                .put("id", a.id())
                .put("pointer", a.pointer())
                .put("uri", a.uri())
                .put("repo", a.repo())
                .put("path", a.path())
                .put("pinned_commit", a.pinnedCommit())
                .put("blob", a.blob())
                .put("hash", a.hash())
                .put("commit", a.commit())
                .put("event_id", a.eventId());
    }

    private static ObjectNode listed(List<RefEntry> entries) {
        ObjectNode r = F.objectNode();
        ArrayNode refs = r.putArray("refs");
        for (RefEntry e : entries) {
            ObjectNode o = refs.addObject();
            o.put("id", e.id());
            o.put("pointer", e.pointer());
            o.put("repo", e.repo());
            o.put("path", e.path());
            o.put("pinned_commit", e.pinnedCommit());
            o.put("blob", e.blob());
            e.placedOn().forEach(o.putArray("placed_on")::add);
            o.put("section", e.section());
            o.put("retired", e.retired());
            if (e.driftId() != null) {
                o.put("drift_id", e.driftId());
            }
        }
        return r;
    }

    private static ObjectNode reconciled(Reconciled rec) {
        ObjectNode r = F.objectNode();
        r.put("checked", rec.checked());
        r.put("unchanged", rec.unchanged());
        ArrayNode fs = r.putArray("findings");
        for (Reconciled.Finding f : rec.findings()) {
            ObjectNode o = fs.addObject();
            o.put("id", f.id());
            o.put("pointer", f.pointer());
            o.put("drift_id", f.driftId());
            o.put("recorded", f.recorded());
            o.put("kind", f.kind());
            o.put("repo", f.repo());
            o.put("path", f.path());
            o.put("new_path", f.newPath());
            o.put("commits_total", f.commitsTotal());
            ArrayNode cs = o.putArray("commits");
            for (Reconciled.Commit c : f.commits()) {
                cs.addObject()
                        .put("id", c.id())
                        .put("author", c.author())
                        .put("date", c.date())
                        .put("subject", c.subject());
            }
        }
        rec.closed().forEach(r.putArray("closed")::add);
        ArrayNode pr = r.putArray("problems");
        for (Reconciled.Problem x : rec.problems()) {
            pr.addObject()
                    .put("id", x.id())
                    .put("repo", x.repo())
                    .put("path", x.path())
                    .put("problem", x.problem());
        }
        r.put("commit", rec.commit());
        r.put("millis", rec.millis());
        return r;
    }

    private static ObjectNode repinned(Repinned x) {
        return F.objectNode()
                .put("id", x.id())
                .put("path", x.path())
                .put("previous_path", x.previousPath())
                .put("pinned_commit", x.pinnedCommit())
                .put("blob", x.blob())
                .put("commit", x.commit());
    }

    private static ObjectNode retired(Retired x) {
        return F.objectNode().put("id", x.id()).put("retired", true).put("commit", x.commit());
    }

    /** A malformed parameter. */
    private static final class Bad extends Exception {
        Bad(String message) {
            super(message, null, false, false);
        }
    }

    private static List<String> placedOn(ObjectNode p) throws Bad {
        JsonNode n = p.get("placed_on");
        if (n == null || n.isNull()) {
            throw new Bad("missing parameter 'placed_on' (the memory file(s) or slice id(s) the reference belongs to)");
        }
        List<String> out = new ArrayList<>();
        if (n.isTextual()) {
            out.add(n.asText());
        } else if (n.isArray() && !n.isEmpty()) {
            for (JsonNode x : n) {
                if (!x.isTextual()) {
                    throw new Bad("placed_on must be a string or an array of strings");
                }
                out.add(x.asText());
            }
        } else {
            throw new Bad("placed_on must be a string or a non-empty array of strings");
        }
        return out;
    }

    private static void only(ObjectNode p, String... allowed) throws Bad {
        Set<String> ok = Set.of(allowed);
        for (Iterator<String> it = p.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!ok.contains(f)) {
                throw new Bad("unknown parameter '" + f + "'; expected " + String.join(", ", allowed));
            }
        }
    }

    /** A file system path parameter: no control character (a NUL cannot be in a file name at all). */
    private static String file(ObjectNode p, String name, boolean required) throws Bad {
        String v = str(p, name, required);
        for (int i = 0; v != null && i < v.length(); i++) {
            if (v.charAt(i) < 0x20 || v.charAt(i) == 0x7f) {
                throw new Bad("parameter '" + name
                        + "' contains control character U+%04X at index %d; a file path holds none"
                                .formatted((int) v.charAt(i), i));
            }
        }
        return v;
    }

    private static String str(ObjectNode p, String name, boolean required) throws Bad {
        JsonNode n = p.get(name);
        if (n == null || n.isNull()) {
            if (required) {
                throw new Bad("missing parameter '" + name + "'");
            }
            return null;
        }
        if (!n.isTextual()) {
            throw new Bad("parameter '" + name + "' must be a string");
        }
        return n.asText();
    }
}
