package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ReplayCheck;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.rpc.catalogue.MethodCatalogue;
import dev.memoryd.ledger.VerifyResult;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Maps one JSON-RPC request line to one {@link ServingRoot} call and its outcome to a reply: the
 * envelope's checks, then the method's handler as the {@link MethodCatalogue} routes it (one
 * namespace class per catalogue group). Thread-safe; called from every connection thread.
 */
public final class Dispatcher implements Function<String, Optional<String>> {
    private static final Logger LOG = Logger.getLogger(Dispatcher.class.getName());
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final Routes routes;
    private final ServingRoot svc;

    /** Serves {@code svc}; routes exactly the methods of {@link MethodCatalogue#get()}. */
    public Dispatcher(ServingRoot svc) {
        this.svc = svc;
        this.routes = routes(svc, MethodCatalogue.get());
    }

    /**
     * The method table over {@code svc}: one namespace class per catalogue group. Building it calls
     * nothing on {@code svc}; it fails when the catalogue and the handlers disagree.
     */
    static Routes routes(ServingRoot svc, MethodCatalogue catalogue) {
        ReadPoint points = new ReadPoint(svc);
        return Routes.build(
                catalogue,
                List.of(
                        new MemoryRpc(svc, points),
                        new LedgerRpc(svc),
                        new SlipRpc(svc),
                        new ConversationRpc(svc),
                        new SlicesRpc(svc),
                        new DriftRpc(svc),
                        new SubstrateRpc(svc, points),
                        new ProposalsRpc(svc),
                        new RefsRpc(svc),
                        new BranchRpc(svc),
                        new FilesRpc(svc),
                        new SectionsRpc(svc),
                        new GrammarRpc(svc)));
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
            return Optional.of(JsonRpc.error(
                    null,
                    ErrorReason.INVALID_REQUEST,
                    req != null && req.isArray()
                            ? "batch requests are not supported; send one request per line"
                            : "a request must be a JSON object",
                    null));
        }
        JsonNode id = req.get("id");
        boolean notification = id == null;
        if (id != null && !(id.isTextual() || id.isIntegralNumber() || id.isNull())) {
            return Optional.of(
                    JsonRpc.error(null, ErrorReason.INVALID_REQUEST, "id must be a string, an integer or null", null));
        }
        Failure unencodable = RequestCheck.check(req);
        if (unencodable != null) {
            return notification
                    ? Optional.empty()
                    : Optional.of(JsonRpc.error(
                            "id".equals(unencodable.details().get("field")) ? null : id,
                            unencodable.reason(),
                            unencodable.message(),
                            unencodable.details()));
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
            return notification
                    ? Optional.empty()
                    : Optional.of(JsonRpc.error(id, e.failure.reason(), e.failure.message(), e.failure.details()));
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.SEVERE, "request failed", e);
            return notification
                    ? Optional.empty()
                    : Optional.of(JsonRpc.error(id, ErrorReason.INTERNAL, "internal error: " + e, null));
        }
    }

    private JsonNode call(String method, ObjectNode p) throws BadRequest, IOException {
        Handler h = routes.find(method);
        if (h == null) {
            throw new BadRequest(
                    ErrorReason.UNKNOWN_METHOD,
                    "unknown method '" + method + "'; known: " + String.join(", ", routes.names()));
        }
        if (routes.seesWrites(method)) {
            Optional<Failure> unpublished = svc.awaitPublished();
            if (unpublished.isPresent()) {
                throw new BadRequest(unpublished.get());
            }
        }
        return h.call(p);
    }

    public static ObjectNode ontoJson(List<dev.memoryd.daemon.write.WritePipeline.OntoFile> files) {
        ObjectNode r = F.objectNode();
        boolean ok = true;
        ArrayNode arr = r.putArray("files");
        for (dev.memoryd.daemon.write.WritePipeline.OntoFile f : files) {
            ObjectNode o = arr.addObject()
                    .put("path", f.path())
                    .put("outcome", f.outcome())
                    .put("applied", f.applied());
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

    public static ObjectNode replayJson(ReplayCheck.ReplayReport rep) {
        ObjectNode r = F.objectNode();
        r.put("ok", rep.ok());
        r.put("events", rep.events());
        r.put("declarations", rep.declarations());
        r.put("files", rep.files());
        r.put("millis", rep.nanos() / 1_000_000);
        ArrayNode d = r.putArray("differences");
        for (ReplayCheck.Difference x : rep.differences()) {
            ObjectNode o =
                    d.addObject().put("path", x.path()).put("kind", x.kind()).put("detail", x.detail());
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
}
