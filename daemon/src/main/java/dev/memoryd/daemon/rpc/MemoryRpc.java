package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.intParam;
import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Replies.await;
import static dev.memoryd.daemon.rpc.Replies.unwrap;
import static dev.memoryd.daemon.rpc.Replies.value;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.notes.NoteImport;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.LintProblem;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpParse;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code memory} group: memory files ({@code write}, {@code read}, {@code lint},
 * {@code history}, {@code resolve}, {@code search}), humans' edits ({@code capture},
 * {@code replay}) and {@code ping}.
 */
final class MemoryRpc implements Namespace {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final ServingRoot svc;
    private final ReadPoint points;

    MemoryRpc(ServingRoot svc, ReadPoint points) {
        this.svc = svc;
        this.points = points;
    }

    @Override
    public String group() {
        return "memory";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("ping", p -> {
            only(p);
            return MemoryReplies.ping(svc.ping());
        });
        r.put("write", this::write);
        r.put("notes.import", this::importNotes);
        r.put("read", p -> {
            only(p, "path", "section", "branch", "at");
            return MemoryReplies.read(unwrap(
                    svc.read(str(p, "path", true), str(p, "section", false), points.at(p, str(p, "path", true)))));
        });
        r.put("lint", this::lint);
        r.put("history", this::history);
        r.put("resolve", p -> {
            only(p, "token");
            Event e = unwrap(svc.reads().resolve(str(p, "token", true)));
            return e.toJson().put("commit", svc.reads().commitOf(e.eventId()).orElse(null));
        });
        r.put("search", this::search);
        r.put("capture", this::capture);
        r.put("replay", this::replay);
        return r;
    }

    private JsonNode lint(ObjectNode p) throws BadRequest, IOException {
        only(p, "path");
        ArrayNode probs = F.arrayNode();
        for (LintProblem lp : unwrap(svc.reads().lint(str(p, "path", false)))) {
            ObjectNode o = probs.addObject();
            o.put("path", lp.path());
            o.put("line", lp.line());
            o.put("rule", lp.rule());
            o.put("message", lp.message());
        }
        ObjectNode r = F.objectNode();
        r.set("problems", probs);
        return r;
    }

    private JsonNode history(ObjectNode p) throws BadRequest, IOException {
        only(p, "path", "section", "limit", "branch");
        String b = points.branch(p);
        int limit = p.has("limit") ? intParam(p, "limit", 1, 100_000) : 100;
        ArrayNode evs = F.arrayNode();
        for (Event e : unwrap(svc.reads().history(str(p, "path", true), str(p, "section", false), limit, b))) {
            evs.add(e.toJson());
        }
        ObjectNode r = F.objectNode();
        r.set("events", evs);
        return r;
    }

    private JsonNode search(ObjectNode p) throws BadRequest, IOException {
        only(p, "q", "limit", "branch", "at", "source");
        String at = points.at(p);
        String source = str(p, "source", false);
        if (source != null && !dev.memoryd.daemon.write.Provenance.SOURCES.contains(source)) {
            throw new BadRequest(new Failure(
                    ErrorReason.INVALID_REQUEST,
                    "parameter 'source' must be one of "
                            + String.join(", ", dev.memoryd.daemon.write.Provenance.SOURCES) + ", not '" + source + "'",
                    Map.of("field", "source")));
        }
        int limit = p.has("limit") ? intParam(p, "limit", 1, 1000) : 10;
        try {
            if (at != null) { // a past commit, or another branch's head: indexed for this query
                return SearchReplies.hits(unwrap(
                                svc.reads().commits().searchAt(str(p, "q", true), limit, points.branch(p), at, source)))
                        .put("commit", at);
            }
            return SearchReplies.hits(svc.search(str(p, "q", true), limit, source));
        } catch (dev.memoryd.daemon.search.SearchIndex.BadQuery e) {
            throw new BadRequest(ErrorReason.INVALID_REQUEST, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BadRequest(ErrorReason.UNAVAILABLE, "interrupted while searching");
        }
    }

    private JsonNode capture(ObjectNode p) throws BadRequest, IOException {
        only(p, "paths");
        List<dev.memoryd.grammar.RepoPath> paths = new ArrayList<>();
        JsonNode ps = p.get("paths");
        if (ps != null) {
            if (!ps.isArray()) {
                throw new BadRequest(ErrorReason.INVALID_REQUEST, "paths must be an array of repository paths");
            }
            for (JsonNode x : ps) {
                try {
                    paths.add(dev.memoryd.grammar.RepoPath.of(x.asText()));
                } catch (IllegalArgumentException e) {
                    throw new BadRequest(
                            ErrorReason.INVALID_REQUEST, "bad path '" + x.asText() + "': " + e.getMessage());
                }
            }
        }
        WriteOutcome out = await(svc.captureNow(paths));
        ObjectNode r = F.objectNode();
        r.put("captured", out instanceof WriteOutcome.Committed);
        r.put("commit", out instanceof WriteOutcome.Committed c ? c.commit() : null);
        return r;
    }

    private JsonNode replay(ObjectNode p) throws BadRequest {
        only(p, "verify", "onto_latest");
        if (p.path("onto_latest").asBoolean(false) == p.path("verify").asBoolean(false)) {
            throw new BadRequest(
                    ErrorReason.INVALID_REQUEST, "replay takes either {\"verify\": true} or {\"onto_latest\": true}");
        }
        if (p.path("onto_latest").asBoolean(false)) {
            return Dispatcher.ontoJson(value(svc.replayOntoLatest(), "replay failed: "));
        }
        return Dispatcher.replayJson(value(svc.replayVerify(n -> {}), "replay failed: "));
    }

    private JsonNode importNotes(ObjectNode p) throws BadRequest {
        only(p, "user", "part", "section", "notes", "actor", "override_rationale");
        JsonNode arr = p.get("notes");
        if (arr == null || !arr.isArray() || arr.isEmpty()) {
            throw new BadRequest(ErrorReason.INVALID_REQUEST, "notes must be a non-empty array");
        }
        List<NoteImport.Note> notes = new ArrayList<>();
        for (int i = 0; i < arr.size(); i++) {
            JsonNode n = arr.get(i);
            if (!n.isObject() || !n.path("name").isTextual() || !n.path("text").isTextual() || n.size() != 2) {
                throw new BadRequest(new Failure(
                        ErrorReason.INVALID_REQUEST,
                        "notes[" + i + "] must be {name, text}, both strings",
                        Map.of("field", "notes[" + i + "]")));
            }
            try {
                notes.add(new NoteImport.Note(
                        n.get("name").asText(), n.get("text").asText()));
            } catch (IllegalArgumentException e) {
                throw new BadRequest(new Failure(
                        ErrorReason.INVALID_REQUEST,
                        "notes[" + i + "]: " + e.getMessage(),
                        Map.of("field", "notes[" + i + "].name")));
            }
        }
        String section = str(p, "section", false);
        List<NoteImport.Result> results;
        try {
            results = unwrap(svc.importNotes(
                    str(p, "user", true),
                    str(p, "part", false),
                    section == null ? "Drafts" : section,
                    notes,
                    str(p, "actor", false),
                    str(p, "override_rationale", false)));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BadRequest(ErrorReason.UNAVAILABLE, "interrupted while waiting for the writer");
        }
        ObjectNode r = F.objectNode();
        ArrayNode out = F.arrayNode();
        int imported = 0;
        for (NoteImport.Result res : results) {
            ObjectNode o = out.addObject().put("name", res.name());
            if (res instanceof NoteImport.Recorded rec) {
                imported++;
                o.put("commit", rec.commit()).put("token", rec.token());
            } else {
                Failure f = ((NoteImport.Refused) res).failure();
                o.put("reason", f.reason().wireName()).put("message", f.message());
            }
        }
        r.put("imported", imported);
        r.put("refused", results.size() - imported);
        r.set("results", out);
        return r;
    }

    private JsonNode write(ObjectNode p) throws BadRequest {
        only(
                p,
                ProvenanceParams.with(
                        "ops", "rationale", "actor", "branch", "idempotency_key", "tool_call_id", "durability"));
        String level = str(p, "durability", false);
        dev.memoryd.daemon.write.Durability durability = level == null
                ? svc.settings().durability()
                : dev.memoryd.daemon.write.Durability.fromWire(level)
                        .orElseThrow(() -> new BadRequest(new Failure(
                                ErrorReason.INVALID_REQUEST,
                                "durability must be \"commit\" or \"ledger\", not \"" + level + "\"",
                                Map.of("field", "durability"))));
        dev.memoryd.daemon.write.Provenance prov =
                ProvenanceParams.of(svc.settings().provenance(), p, str(p, "tool_call_id", false));
        String branch = points.branch(p);
        String key = str(p, "idempotency_key", false);
        if (key != null && key.isBlank()) {
            // A blank key would make every later blank-keyed write a replay of the first.
            throw new BadRequest(new Failure(
                    ErrorReason.INVALID_REQUEST,
                    "idempotency_key must not be empty: give a key that names this declaration, or none",
                    Map.of("field", "params.idempotency_key")));
        }
        JsonNode opsNode = p.get("ops");
        if (opsNode == null || !opsNode.isArray() || opsNode.isEmpty()) {
            throw new BadRequest(ErrorReason.INVALID_REQUEST, "ops must be a non-empty array");
        }
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < opsNode.size(); i++) {
            OpParse r = OpCodec.parse(opsNode.get(i));
            if (r instanceof OpParse.Invalid inv) {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("op_index", i);
                if (inv.fieldPath() != null) {
                    d.put("field", "ops[" + i + "]." + inv.fieldPath());
                }
                throw new BadRequest(
                        new Failure(ErrorReason.fromWire(inv.reason()), "ops[" + i + "]: " + inv.message(), d));
            }
            ops.add(((OpParse.Ok) r).op());
        }
        String rationale = str(p, "rationale", false);
        Failure agentRule = AgentWriteCheck.rationale(rationale);
        try {
            agentRule = agentRule != null ? agentRule : AgentWriteCheck.evidence(ops, svc.reads()::resolve);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        if (agentRule != null) {
            throw new BadRequest(agentRule);
        }
        WriteRequest req = new WriteRequest(ops, rationale, str(p, "actor", false), key, str(p, "tool_call_id", false))
                .withProvenance(prov)
                .withDurability(durability);
        WriteOutcome out;
        try {
            out = await(unwrap(svc.write(req, branch)));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        ObjectNode r = F.objectNode();
        if (out instanceof WriteOutcome.Unchanged u) {
            r.put("commit", u.commit());
            r.putArray("events");
            r.put("changed", false);
            r.put("message", "nothing changed: every op left its section as it was; no commit made");
        } else if (out instanceof WriteOutcome.Recorded rec) {
            r.putNull("commit");
            eventRefs(r.putArray("events"), rec.events());
            r.put("changed", true);
            r.put("durability", "ledger");
            if (prov != null) {
                r.set("provenance", dev.memoryd.daemon.write.ProvenanceJson.of(prov));
            }
        } else {
            WriteOutcome.Committed c = (WriteOutcome.Committed) out;
            r.put("commit", c.commit());
            eventRefs(r.putArray("events"), c.events());
            r.put("changed", true);
            if (c.proposal() != null) {
                r.put("proposal", c.proposal());
                r.put("proposal_branch", "proposals/" + c.proposal());
                r.put(
                        "message",
                        "sections marked for review: the change waits as proposal " + c.proposal()
                                + " on branch proposals/" + c.proposal() + " (proposals.accept / proposals.reject)");
            }
            if (c.replayed()) {
                r.put("idempotent_replay", true);
            } else if (prov != null) {
                r.set("provenance", dev.memoryd.daemon.write.ProvenanceJson.of(prov));
            }
        }
        return r;
    }

    private static void eventRefs(ArrayNode evs, List<WriteOutcome.EventRef> refs) {
        for (WriteOutcome.EventRef e : refs) {
            ObjectNode o = evs.addObject();
            o.put("event_id", e.eventId());
            o.put("token", e.token());
            o.put("after_hash", e.afterHash());
            o.put("path", e.path());
            o.put("section", e.section());
        }
    }
}
