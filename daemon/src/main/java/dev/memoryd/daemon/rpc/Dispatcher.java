package dev.memoryd.daemon.rpc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.slip.SlipRelay;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.LintProblem;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpParse;
import dev.memoryd.grammar.policy.PolicyConfig;
import dev.memoryd.grammar.policy.PolicyInputException;
import dev.memoryd.grammar.slip.Nslip;
import dev.memoryd.grammar.slip.SlipJson;
import dev.memoryd.grammar.slip.SlipJsonParse;
import dev.memoryd.grammar.slip.SlipMessage;
import dev.memoryd.grammar.slip.SlipParse;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.VerifyResult;

/**
 * Maps one JSON-RPC request line to one {@link Memoryd} call and its outcome to a reply: parsing
 * and error mapping only. Thread-safe; called from every connection thread.
 */
public final class Dispatcher implements Function<String, Optional<String>> {
  private static final Logger LOG = Logger.getLogger(Dispatcher.class.getName());
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private final Memoryd svc;

  public Dispatcher(Memoryd svc) {
    this.svc = svc;
  }

  /** Thrown for a malformed request; carries the JSON-RPC id if one was read. */
  private static final class BadRequest extends Exception {
    final transient Failure failure;

    BadRequest(ErrorReason r, String msg) {
      this(new Failure(r, msg, Map.of()));
    }

    BadRequest(Failure f) {
      super(f.message(), null, false, false);
      this.failure = f;
    }
  }

  @Override
  public Optional<String> apply(String line) {
    JsonNode req;
    try {
      req = JsonRpc.readRequest(line);
    } catch (JsonProcessingException e) {
      Failure f = JsonRpc.malformed(e);
      return Optional.of(JsonRpc.error(null, f.reason(), f.message(), f.details()));
    }
    if (req == null || !req.isObject()) {
      return Optional.of(JsonRpc.error(null, ErrorReason.INVALID_REQUEST,
          req != null && req.isArray() ? "batch requests are not supported; send one request per line"
              : "a request must be a JSON object", null));
    }
    JsonNode id = req.get("id");
    boolean notification = id == null;
    if (id != null && !(id.isTextual() || id.isIntegralNumber() || id.isNull())) {
      return Optional.of(JsonRpc.error(null, ErrorReason.INVALID_REQUEST,
          "id must be a string, an integer or null", null));
    }
    Failure unencodable = RequestCheck.check(req);
    if (unencodable != null) {
      return notification ? Optional.empty() : Optional.of(JsonRpc.error(
          "id".equals(unencodable.details().get("field")) ? null : id,
          unencodable.reason(), unencodable.message(), unencodable.details()));
    }
    try {
      if (!"2.0".equals(req.path("jsonrpc").asText(null))) {
        throw new BadRequest(ErrorReason.INVALID_REQUEST, "jsonrpc must be \"2.0\"");
      }
      JsonNode m = req.get("method");
      if (m == null || !m.isTextual()) {
        throw new BadRequest(ErrorReason.INVALID_REQUEST, "method must be a string");
      }
      JsonNode params = req.get("params");
      if (params == null || params.isNull()) {
        params = F.objectNode();
      } else if (!params.isObject()) {
        throw new BadRequest(ErrorReason.INVALID_REQUEST, "params must be an object");
      }
      JsonNode result = call(m.asText(), (ObjectNode) params);
      return notification ? Optional.empty() : Optional.of(JsonRpc.result(id, result));
    } catch (BadRequest e) {
      return notification ? Optional.empty()
          : Optional.of(JsonRpc.error(id, e.failure.reason(), e.failure.message(), e.failure.details()));
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.SEVERE, "request failed", e);
      return notification ? Optional.empty() : Optional.of(JsonRpc.error(id, ErrorReason.INTERNAL,
          "internal error: " + e, null));
    }
  }

  private JsonNode call(String method, ObjectNode p) throws BadRequest, IOException {
    switch (method) {
      case "ping":
        only(p);
        return svc.ping();
      case "write":
        return write(p);
      case "read": {
        only(p, "path", "section", "branch", "at");
        return unwrap(svc.read(str(p, "path", true), str(p, "section", false), at(p)));
      }
      case "lint": {
        only(p, "path");
        ArrayNode probs = F.arrayNode();
        for (LintProblem lp : unwrap(svc.lint(str(p, "path", false)))) {
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
      case "history": {
        only(p, "path", "section", "limit", "branch");
        String b = branch(p);
        int limit = p.has("limit") ? intParam(p, "limit", 1, 100_000) : 100;
        ArrayNode evs = F.arrayNode();
        for (Event e : unwrap(svc.history(str(p, "path", true), str(p, "section", false), limit, b))) {
          evs.add(e.toJson());
        }
        ObjectNode r = F.objectNode();
        r.set("events", evs);
        return r;
      }
      case "resolve": {
        only(p, "token");
        return unwrap(svc.resolve(str(p, "token", true))).toJson();
      }
      case "ledger.verify": {
        only(p);
        return verifyJson(svc.verify());
      }
      case "ledger.rotate_key": {
        only(p, "actor");
        WriteOutcome.Committed c = (WriteOutcome.Committed) await(svc.rotateKey(str(p, "actor", false)));
        ObjectNode r = F.objectNode();
        r.put("commit", c.commit());
        r.put("event_id", c.events().get(0).eventId());
        return r;
      }
      case "proposals.list": {
        only(p, "all");
        ObjectNode r = F.objectNode();
        ArrayNode items = r.putArray("items");
        for (dev.memoryd.daemon.proposals.ProposalBook.Proposal x : svc.proposals().list(p.path("all").asBoolean(false))) {
          items.add(proposalJson(x));
        }
        return r;
      }
      case "proposals.show": {
        only(p, "id");
        String id = str(p, "id", true);
        return proposalJson(svc.proposals().get(id).orElseThrow(() ->
            new BadRequest(ErrorReason.NOT_FOUND, "no proposal " + id + " (see proposals.list)")));
      }
      case "proposals.accept":
      case "proposals.reject": {
        only(p, "id", "actor", "note");
        String id = str(p, "id", true);
        WriteOutcome out = await(method.equals("proposals.accept")
            ? svc.proposals().accept(id, str(p, "actor", false), str(p, "note", false))
            : svc.proposals().reject(id, str(p, "actor", false), str(p, "note", false)));
        ObjectNode r = F.objectNode();
        r.put("id", id);
        r.put("status", method.equals("proposals.accept") ? "accepted" : "rejected");
        r.put("commit", out instanceof WriteOutcome.Committed c ? c.commit() : null);
        return r;
      }
      case "drift.list": {
        only(p);
        ObjectNode r = F.objectNode();
        ArrayNode items = r.putArray("items");
        for (dev.memoryd.daemon.drift.DriftQueue.Entry e : svc.drift().list()) {
          items.addObject().put("id", e.id()).put("path", e.path().value()).put("kind", e.kind())
              .put("reason", e.reason()).put("since", e.since());
        }
        return r;
      }
      case "drift.show": {
        only(p, "id");
        String id = str(p, "id", true);
        dev.memoryd.daemon.drift.DriftQueue.Entry e = svc.drift().get(id).orElseThrow(() ->
            new BadRequest(ErrorReason.NOT_FOUND, "no open drift item " + id + " (see drift.list)"));
        ObjectNode r = F.objectNode();
        r.put("id", e.id()).put("path", e.path().value()).put("kind", e.kind()).put("reason", e.reason())
            .put("since", e.since()).put("updated", e.updated());
        r.set("problems", e.problems());
        r.set("human", e.human());
        r.put("text", e.text());
        // A file reference's item has no memory-file text to diff; its commits are in human.
        r.put("diff", e.kind().startsWith(dev.memoryd.daemon.refs.RefStore.KIND_PREFIX) ? e.text() + "\n"
            : svc.diffFromRecorded(e.path(), e.text()));
        return r;
      }
      case "drift.resolve": {
        only(p, "id", "resolution", "from", "to", "actor", "note");
        String id = str(p, "id", true);
        String how = str(p, "resolution", true);
        dev.memoryd.daemon.drift.DriftQueue.Resolution res = switch (how) {
          case "accept_current" -> new dev.memoryd.daemon.drift.DriftQueue.AcceptCurrent();
          case "restore" -> new dev.memoryd.daemon.drift.DriftQueue.Restore();
          case "dismiss" -> new dev.memoryd.daemon.drift.DriftQueue.Dismiss();
          case "reanchor" -> new dev.memoryd.daemon.drift.DriftQueue.Reanchor(str(p, "from", true), str(p, "to", true));
          default -> throw new BadRequest(ErrorReason.INVALID_REQUEST, "resolution must be one of accept_current,"
              + " restore, reanchor, dismiss; got '" + how + "'");
        };
        WriteOutcome out = await(svc.drift().resolve(id, res, str(p, "actor", false), str(p, "note", false)));
        ObjectNode r = F.objectNode();
        r.put("id", id).put("resolution", how);
        r.put("commit", out instanceof WriteOutcome.Committed c ? c.commit() : null);
        return r;
      }
      case "capture": {
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
              throw new BadRequest(ErrorReason.INVALID_REQUEST, "bad path '" + x.asText() + "': " + e.getMessage());
            }
          }
        }
        WriteOutcome out = await(svc.captureNow(paths));
        ObjectNode r = F.objectNode();
        r.put("captured", out instanceof WriteOutcome.Committed);
        r.put("commit", out instanceof WriteOutcome.Committed c ? c.commit() : null);
        return r;
      }
      case "replay": {
        only(p, "verify", "onto_latest");
        if (p.path("onto_latest").asBoolean(false) == p.path("verify").asBoolean(false)) {
          throw new BadRequest(ErrorReason.INVALID_REQUEST, "replay takes either {\"verify\": true} or {\"onto_latest\": true}");
        }
        if (p.path("onto_latest").asBoolean(false)) {
          return ontoJson(value(svc.replayOntoLatest(), "replay failed: "));
        }
        return replayJson(value(svc.replayVerify(n -> { }), "replay failed: "));
      }
      case "explore": {
        only(p, "id", "rel", "infer");
        boolean infer = false;
        if (p.has("infer")) {
          if (!p.get("infer").isBoolean()) {
            throw new BadRequest(ErrorReason.INVALID_REQUEST, "parameter 'infer' must be a boolean");
          }
          infer = p.get("infer").asBoolean();
        }
        return exploreJson(unwrap(svc.explore(str(p, "id", true), str(p, "rel", false), infer)));
      }
      case "conversation.append":
        return conversationAppend(p);
      case "slices.create": {
        only(p, "slice", "body", "actor");
        JsonNode sl = p.get("slice");
        if (sl == null || !sl.isObject()) {
          throw new BadRequest(ErrorReason.INVALID_REQUEST, "slice must be an object (the slice: mapping)");
        }
        WriteOutcome.Committed c = (WriteOutcome.Committed) await(svc.slices().create((ObjectNode) sl,
            str(p, "body", false), str(p, "actor", false)));
        ObjectNode r = F.objectNode();
        String path = c.events().get(0).path();
        r.put("id", path.substring(".slices/".length(), path.length() - ".slice".length()));
        r.put("path", path);
        r.put("commit", c.commit());
        r.put("event_id", c.events().get(0).eventId());
        return r;
      }
      case "append_row": {
        only(p, "id", "row", "actor");
        WriteOutcome.Committed c = (WriteOutcome.Committed) await(svc.slices().appendRow(str(p, "id", true),
            p.get("row"), str(p, "actor", false)));
        ObjectNode r = F.objectNode();
        r.put("commit", c.commit());
        r.put("event_id", c.events().get(0).eventId());
        r.put("token", c.events().get(0).token());
        return r;
      }
      case "search": {
        only(p, "q", "limit", "branch", "at");
        String at = at(p);
        int limit = p.has("limit") ? intParam(p, "limit", 1, 1000) : 10;
        try {
          ObjectNode r = F.objectNode();
          ArrayNode hits = r.putArray("hits");
          if (at != null) { // a past commit, or another branch's head: indexed for this query
            unwrap(svc.searchAt(str(p, "q", true), limit, branch(p), at)).forEach(hits::add);
            r.put("commit", at);
            return r;
          }
          svc.search().search(str(p, "q", true), limit, svc.config().clock().instant()).forEach(hits::add);
          return r;
        } catch (dev.memoryd.daemon.search.SearchIndex.BadQuery e) {
          throw new BadRequest(ErrorReason.INVALID_REQUEST, e.getMessage());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new BadRequest(ErrorReason.UNAVAILABLE, "interrupted while searching");
        }
      }
      case "slices.list": {
        only(p);
        ObjectNode r = F.objectNode();
        ArrayNode items = r.putArray("items");
        svc.slices().list(svc.config().clock().instant(), svc.config().halfLife()).forEach(items::add);
        return r;
      }
      case "slices.rows": {
        only(p, "id", "all");
        String id = str(p, "id", true);
        String text = svc.slices().read(id).orElseThrow(() -> new BadRequest(ErrorReason.NOT_FOUND, "no slice " + id));
        dev.memoryd.grammar.slices.SliceFile sf = dev.memoryd.grammar.slices.SliceFile.parse(text);
        ObjectNode r = F.objectNode();
        ArrayNode rows = r.putArray("rows");
        if (p.path("all").asBoolean(false)) {
          dev.memoryd.grammar.slices.JsonlBody.rows(sf.body()).forEach(x -> rows.add(x.node()));
        } else {
          dev.memoryd.grammar.slices.JsonlBody.activeRows(sf.body()).forEach(rows::add);
        }
        return r;
      }
      case "declare":
        return declare(p);
      case "scope":
        return scope(p);
      case "traverse": {
        only(p, "from", "depth", "branch", "at", "limit");
        String at = at(p);
        int depth = p.has("depth") ? intParam(p, "depth", 1, 5) : 1;
        int limit = p.has("limit") ? intParam(p, "limit", 1, 100_000) : 1000;
        return unwrap(svc.chunks().traverse(str(p, "from", true), depth, at, limit));
      }
      case "context":
        return context(p);
      case "refs.add":
      case "refs.reconcile":
      case "refs.repin":
      case "refs.retire":
      case "refs.list":
        return unwrap(RefsRpc.call(svc.refs(), method, p));
      case "branch.create":
      case "branch.list":
      case "branch.delete":
      case "branch.merge":
        return branchCall(method, p);
      case "sync":
        only(p, "remote", "resolutions", "actor");
        return unwrap(svc.sync(str(p, "remote", true), p.get("resolutions"), str(p, "actor", false)));
      case "slip.send":
        return slipSend(p);
      case "slip.recv":
        return slipRecv(p);
      default:
        throw new BadRequest(ErrorReason.UNKNOWN_METHOD, "unknown method '" + method
            + "'; known: ping, write, read, lint, history, resolve, ledger.verify, slip.send, slip.recv, "
            + "conversation.append, context, explore, slices.create, slices.list, slices.rows, append_row, search, ledger.rotate_key,"
            + " drift.list, drift.show, drift.resolve, capture, replay, declare, scope, traverse,"
            + " proposals.list, proposals.show, proposals.accept, proposals.reject,"
            + " refs.add, refs.reconcile, refs.repin, refs.retire, refs.list, sync,"
            + " branch.create, branch.list, branch.delete, branch.merge");
    }
  }

  private static ObjectNode proposalJson(dev.memoryd.daemon.proposals.ProposalBook.Proposal x) {
    ObjectNode o = F.objectNode();
    o.put("id", x.id()).put("branch", x.branch()).put("commit", x.commit()).put("status", x.status())
        .put("actor", x.actor()).put("created", x.created()).put("rationale", x.rationale());
    o.set("changes", x.base());
    o.set("ops", x.ops());
    if (x.closedBy() != null) {
      o.put("closed_by", x.closedBy());
      o.put("note", x.note());
    }
    return o;
  }

  public static ObjectNode ontoJson(List<dev.memoryd.daemon.write.WritePipeline.OntoFile> files) {
    ObjectNode r = F.objectNode();
    boolean ok = true;
    ArrayNode arr = r.putArray("files");
    for (dev.memoryd.daemon.write.WritePipeline.OntoFile f : files) {
      ObjectNode o = arr.addObject().put("path", f.path()).put("outcome", f.outcome()).put("applied", f.applied());
      if (f.reanchored() != null) {
        o.put("reanchored", f.reanchored());
      }
      if (f.halt() != null) {
        o.put("halt", f.halt());
        ok = false;
      }
    }
    r.put("ok", ok);
    return r;
  }

  public static ObjectNode replayJson(Memoryd.ReplayReport rep) {
    ObjectNode r = F.objectNode();
    r.put("ok", rep.ok());
    r.put("events", rep.events());
    r.put("declarations", rep.declarations());
    r.put("files", rep.files());
    r.put("millis", rep.nanos() / 1_000_000);
    ArrayNode d = r.putArray("differences");
    for (Memoryd.Difference x : rep.differences()) {
      ObjectNode o = d.addObject().put("path", x.path()).put("kind", x.kind()).put("detail", x.detail());
      x.sections().forEach(o.putArray("sections")::add);
    }
    ArrayNode h = r.putArray("halted");
    for (dev.memoryd.daemon.write.LedgerReplay.ReplayHalt x : rep.halts()) {
      h.addObject().put("path", x.path().value()).put("seq", x.seq()).put("reason", x.reason());
    }
    return r;
  }

  public static ObjectNode exploreJson(List<dev.memoryd.grammar.slices.LinkGraph.ExploredLink> links) {
    ObjectNode r = F.objectNode();
    ArrayNode arr = r.putArray("links");
    for (dev.memoryd.grammar.slices.LinkGraph.ExploredLink l : links) {
      ObjectNode o = arr.addObject();
      o.put("from", l.from());
      o.put("rel", l.rel());
      o.put("to", l.to());
      o.put("inferred", l.inferred());
      l.via().forEach(o.putArray("via")::add);
    }
    return r;
  }

  public static ObjectNode verifyJson(VerifyResult v) {
    ObjectNode r = F.objectNode();
    r.put("ok", v.ok());
    r.put("lines", v.lines());
    if (!v.ok()) {
      r.put("first_bad_line", v.firstBadLine());
      r.put("file", v.firstBadFile());
      r.put("reason", v.reason());
      r.put("message", v.message());
    }
    return r;
  }

  private JsonNode write(ObjectNode p) throws BadRequest {
    only(p, "ops", "rationale", "actor", "branch", "idempotency_key", "tool_call_id");
    String branch = branch(p);
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
        throw new BadRequest(new Failure(ErrorReason.fromWire(inv.reason()),
            "ops[" + i + "]: " + inv.message(), d));
      }
      ops.add(((OpParse.Ok) r).op());
    }
    String rationale = str(p, "rationale", false);
    Failure agentRule = AgentWriteCheck.rationale(rationale);
    try {
      agentRule = agentRule != null ? agentRule : AgentWriteCheck.evidence(ops, svc::resolve);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    if (agentRule != null) {
      throw new BadRequest(agentRule);
    }
    WriteRequest req = new WriteRequest(ops, rationale, str(p, "actor", false),
        str(p, "idempotency_key", false), str(p, "tool_call_id", false));
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
    } else {
      WriteOutcome.Committed c = (WriteOutcome.Committed) out;
      r.put("commit", c.commit());
      ArrayNode evs = r.putArray("events");
      for (WriteOutcome.EventRef e : c.events()) {
        ObjectNode o = evs.addObject();
        o.put("event_id", e.eventId());
        o.put("token", e.token());
        o.put("after_hash", e.afterHash());
        o.put("path", e.path());
        o.put("section", e.section());
      }
      r.put("changed", true);
      if (c.proposal() != null) {
        r.put("proposal", c.proposal());
        r.put("proposal_branch", "proposals/" + c.proposal());
        r.put("message", "sections marked for review: the change waits as proposal " + c.proposal()
            + " on branch proposals/" + c.proposal() + " (proposals.accept / proposals.reject)");
      }
      if (c.replayed()) {
        r.put("idempotent_replay", true);
      }
    }
    return r;
  }

  private JsonNode declare(ObjectNode p) throws BadRequest {
    only(p, "chunks", "placements", "removals", "rationale", "actor", "branch");
    checkedOutOnly(p, "declare");
    dev.memoryd.daemon.substrate.ChunkStore.Submitted s = svc.chunks().declare(p.get("chunks"), p.get("placements"),
        p.get("removals"), str(p, "rationale", false), str(p, "actor", false));
    WriteOutcome out = await(s.outcome());
    ObjectNode r = F.objectNode();
    ArrayNode created = r.putArray("created");
    for (dev.memoryd.daemon.substrate.ChunkStore.Created c : s.created()) {
      ObjectNode o = created.addObject();
      o.put("ref", c.ref());
      o.put("id", c.id());
      o.put("path", c.path());
    }
    if (out instanceof WriteOutcome.Unchanged u) {
      r.put("commit", u.commit());
      r.put("changed", false);
      r.putArray("changed_paths");
      return r;
    }
    WriteOutcome.Committed c = (WriteOutcome.Committed) out;
    r.put("commit", c.commit());
    r.put("changed", true);
    ArrayNode paths = r.putArray("changed_paths");
    c.events().forEach(e -> paths.add(e.path()));
    return r;
  }

  private JsonNode scope(ObjectNode p) throws BadRequest, IOException {
    only(p, "scopes", "minus", "branch", "at", "limit", "offset");
    String at = at(p);
    List<String> scopes = strings(p, "scopes");
    if (scopes.isEmpty()) {
      throw new BadRequest(ErrorReason.INVALID_REQUEST, "scopes must be a non-empty array of chunk ids or names");
    }
    int limit = p.has("limit") ? intParam(p, "limit", 1, 100_000) : dev.memoryd.daemon.substrate.ChunkStore.DEFAULT_LIMIT;
    int offset = p.has("offset") ? intParam(p, "offset", 0, Integer.MAX_VALUE) : 0;
    return unwrap(svc.chunks().scope(new dev.memoryd.daemon.substrate.ChunkStore.ScopeQuery(scopes,
        strings(p, "minus"), at, limit, offset)));
  }

  private static List<String> strings(ObjectNode p, String name) throws BadRequest {
    JsonNode n = p.get(name);
    List<String> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (!n.isArray()) {
      throw new BadRequest(ErrorReason.INVALID_REQUEST, "parameter '" + name + "' must be an array of strings");
    }
    for (JsonNode x : n) {
      if (!x.isTextual() || x.asText().isEmpty()) {
        throw new BadRequest(ErrorReason.INVALID_REQUEST, "parameter '" + name + "' must be an array of non-empty strings");
      }
      out.add(x.asText());
    }
    return out;
  }

  private JsonNode conversationAppend(ObjectNode p) throws BadRequest {
    only(p, "session_id", "turns", "actor");
    WriteOutcome out;
    try {
      out = svc.conversations().append(str(p, "session_id", true), p.get("turns"), str(p, "actor", false));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BadRequest(ErrorReason.UNAVAILABLE, "interrupted while waiting for the writer");
    } catch (ExecutionException e) {
      throw new BadRequest(ErrorReason.UNAVAILABLE, "not recorded: " + e.getCause().getMessage());
    }
    if (out instanceof WriteOutcome.Rejected rej) {
      throw refused(rej, "turn_index", false);
    }
    WriteOutcome.Committed c = (WriteOutcome.Committed) out;
    ObjectNode r = F.objectNode();
    r.put("commit", c.commit());
    r.put("event_id", c.events().get(0).eventId());
    r.put("token", c.events().get(0).token());
    r.put("path", c.events().get(0).path());
    r.put("turns", p.get("turns").size());
    return r;
  }

  private JsonNode context(ObjectNode p) throws BadRequest {
    only(p, "anchor_turn_id", "policy");
    String anchor = str(p, "anchor_turn_id", true);
    JsonNode policy = p.get("policy");
    try {
      PolicyConfig cfg = policy == null || policy.isNull() ? PolicyConfig.DEFAULT : PolicyConfig.fromJson(policy);
      return svc.conversations().context(anchor, cfg);
    } catch (PolicyInputException e) {
      throw new BadRequest(new Failure(e.kind() == PolicyInputException.Kind.NOT_FOUND
          ? ErrorReason.NOT_FOUND : ErrorReason.INVALID_REQUEST,
          (policy != null && e.kind() != PolicyInputException.Kind.NOT_FOUND ? "policy." : "") + e.getMessage(),
          Map.of("field", e.field())));
    }
  }

  private JsonNode slipSend(ObjectNode p) throws BadRequest {
    only(p, "message", "actor");
    JsonNode m = p.get("message");
    SlipMessage msg;
    if (m != null && m.isTextual()) {
      SlipParse r = Nslip.decode(m.asText());
      if (r instanceof SlipParse.Error e) {
        throw new BadRequest(new Failure(ErrorReason.INVALID_REQUEST, "message: nSLIP " + e.reason()
            + " at position " + e.position() + ": " + e.message(),
            Map.of("position", e.position(), "slip_reason", e.reason())));
      }
      msg = ((SlipParse.Ok) r).message();
    } else if (m != null && m.isObject()) {
      SlipJsonParse r = SlipJson.parse(m);
      if (r instanceof SlipJsonParse.Error e) {
        throw new BadRequest(new Failure(ErrorReason.INVALID_REQUEST, "message." + e.fieldPath()
            + ": " + e.message(), Map.of("field", "message." + e.fieldPath(), "slip_reason", e.reason())));
      }
      msg = ((SlipJsonParse.Ok) r).message();
    } else {
      throw new BadRequest(ErrorReason.INVALID_REQUEST,
          "message must be an nSLIP string or the JSON form of a SLIP message");
    }
    WriteOutcome out = await(svc.slip().send(msg, str(p, "actor", false)));
    WriteOutcome.Committed c = (WriteOutcome.Committed) out;
    ObjectNode r = F.objectNode();
    r.put("event_id", c.events().get(0).eventId());
    r.put("token", c.events().get(0).token());
    r.put("nslip", Nslip.encode(msg));
    r.put("commit", c.commit());
    return r;
  }

  private JsonNode slipRecv(ObjectNode p) throws BadRequest {
    only(p, "agent", "wait_ms", "max");
    if (!p.has("agent")) {
      throw new BadRequest(ErrorReason.INVALID_REQUEST, "missing parameter 'agent'");
    }
    long agent = intParam(p, "agent", 0, Integer.MAX_VALUE);
    int waitMs = p.has("wait_ms") ? intParam(p, "wait_ms", 0, 300_000) : 0;
    int max = p.has("max") ? intParam(p, "max", 1, 10_000) : 100;
    List<SlipRelay.Queued> got;
    try {
      got = svc.slip().recv(agent, waitMs, max);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BadRequest(ErrorReason.UNAVAILABLE, "interrupted while waiting for messages");
    } catch (ExecutionException e) {
      throw new BadRequest(ErrorReason.UNAVAILABLE, "delivery was not recorded; the messages stay queued: "
          + e.getCause().getMessage());
    }
    ObjectNode r = F.objectNode();
    ArrayNode msgs = r.putArray("messages");
    for (SlipRelay.Queued q : got) {
      ObjectNode o = msgs.addObject();
      o.put("event_id", q.eventId());
      o.put("nslip", q.nslip());
      ObjectNode j = SlipJson.toJson(q.message());
      o.put("act", j.get("act").asText());
      o.put("frame", j.get("frame").asText());
      o.set("conv_id", j.get("conv_id"));
      o.set("turn", j.get("turn"));
      o.set("src", j.get("src"));
      o.set("dst", j.get("dst"));
      o.set("slots", j.get("slots"));
    }
    return r;
  }

  /** A refusal as a reply: the failing item's index under {@code indexKey}, optionally in the message. */
  private static BadRequest refused(WriteOutcome.Rejected rej, String indexKey, boolean prefixOp) {
    Map<String, Object> d = new LinkedHashMap<>(rej.failure().details());
    if (rej.opIndex() >= 0) {
      d.put(indexKey, rej.opIndex());
    }
    String prefix = prefixOp && rej.opIndex() >= 0 ? "ops[" + rej.opIndex() + "]: " : "";
    return new BadRequest(new Failure(rej.failure().reason(), prefix + rej.failure().message(), d));
  }

  /** The value of work queued on the writer; its failure is {@code unavailable}, prefixed by {@code failed}. */
  private static <T> T value(java.util.concurrent.CompletableFuture<T> f, String failed) throws BadRequest {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BadRequest(ErrorReason.UNAVAILABLE, "interrupted while waiting for the writer");
    } catch (ExecutionException e) {
      throw new BadRequest(ErrorReason.UNAVAILABLE, failed + e.getCause().getMessage());
    }
  }

  private static WriteOutcome await(java.util.concurrent.CompletableFuture<WriteOutcome> f) throws BadRequest {
    WriteOutcome out = value(f, "not recorded: ");
    if (out instanceof WriteOutcome.Rejected rej) {
      throw refused(rej, "op_index", true);
    }
    return out;
  }

  private static <T> T unwrap(Outcome<T> o) throws BadRequest {
    if (o instanceof Outcome.Failed<T> f) {
      throw new BadRequest(f.failure());
    }
    return ((Outcome.Ok<T>) o).value();
  }

  /** The {@code branch} parameter, checked to name a local branch (null: the checked-out one). */
  private String branch(ObjectNode p) throws BadRequest {
    String b = str(p, "branch", false);
    if (b == null || b.equals(svc.config().branch())) {
      return null;
    }
    try {
      unwrap(svc.readPoint(b, null)); // not_found / invalid_request for a branch that is not there
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return b;
  }

  /** The commit a read answers from: {@code at}, else a non-checked-out branch's head, else null. */
  private String at(ObjectNode p) throws BadRequest, IOException {
    return unwrap(svc.readPoint(branch(p), str(p, "at", false)));
  }

  /** Methods served from the checked-out branch's indexes only. */
  private void checkedOutOnly(ObjectNode p, String method) throws BadRequest {
    if (branch(p) != null) {
      throw new BadRequest(ErrorReason.INVALID_REQUEST, method + " covers the checked-out branch '"
          + svc.config().branch() + "' only; read the branch '" + str(p, "branch", false) + "' with read, scope or traverse");
    }
  }

  private JsonNode branchCall(String method, ObjectNode p) throws BadRequest, IOException {
    dev.memoryd.daemon.branch.Branches bs = svc.branches();
    switch (method) {
      case "branch.create":
        only(p, "name", "from", "actor");
        return unwrap(bs.create(str(p, "name", true), str(p, "from", false), str(p, "actor", false)));
      case "branch.list": {
        only(p);
        ObjectNode r = F.objectNode();
        ArrayNode arr = r.putArray("branches");
        for (dev.memoryd.daemon.branch.Branches.Info i : bs.list()) {
          arr.addObject().put("name", i.name()).put("head", i.head()).put("checked_out", i.checkedOut())
              .put("chain_lines", i.chainLines());
        }
        return r;
      }
      case "branch.delete":
        only(p, "name", "actor");
        return unwrap(bs.delete(str(p, "name", true), str(p, "actor", false)));
      default:
        only(p, "from", "into", "resolutions", "actor");
        return unwrap(bs.merge(str(p, "from", true), str(p, "into", false), p.get("resolutions"),
            str(p, "actor", false)));
    }
  }

  private static void only(ObjectNode p, String... allowed) throws BadRequest {
    Set<String> ok = Set.of(allowed);
    for (Iterator<String> it = p.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!ok.contains(f)) {
        throw new BadRequest(ErrorReason.INVALID_REQUEST, "unknown parameter '" + f + "'"
            + (allowed.length == 0 ? "; this method takes none" : "; expected " + String.join(", ", allowed)));
      }
    }
  }

  private static String str(ObjectNode p, String name, boolean required) throws BadRequest {
    JsonNode n = p.get(name);
    if (n == null || n.isNull()) {
      if (required) {
        throw new BadRequest(ErrorReason.INVALID_REQUEST, "missing parameter '" + name + "'");
      }
      return null;
    }
    if (!n.isTextual()) {
      throw new BadRequest(ErrorReason.INVALID_REQUEST, "parameter '" + name + "' must be a string");
    }
    return n.asText();
  }

  private static int intParam(ObjectNode p, String name, int min, int max) throws BadRequest {
    JsonNode n = p.get(name);
    if (!n.isIntegralNumber() || n.asLong() < min || n.asLong() > max) {
      throw new BadRequest(ErrorReason.INVALID_REQUEST, "parameter '" + name
          + "' must be an integer in [" + min + ", " + max + "]");
    }
    return n.asInt();
  }
}
