package dev.memoryd.daemon.rpc;

import static dev.memoryd.daemon.rpc.Params.intParam;
import static dev.memoryd.daemon.rpc.Params.only;
import static dev.memoryd.daemon.rpc.Params.str;
import static dev.memoryd.daemon.rpc.Replies.await;
import static dev.memoryd.daemon.rpc.Replies.unwrap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.history.SectionBodies;
import dev.memoryd.daemon.history.SectionIndex;
import dev.memoryd.daemon.locks.SectionLocks;
import dev.memoryd.daemon.read.ReadResult;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code sections} group: each section of a file with its text and last change
 * ({@code sections.list}) and one section's history a page at a time
 * ({@code sections.history}), both from the daemon's {@link SectionIndex}.
 */
final class SectionsRpc implements Namespace {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final ServingRoot svc;

    SectionsRpc(ServingRoot svc) {
        this.svc = svc;
    }

    @Override
    public String group() {
        return "sections";
    }

    @Override
    public Map<String, Handler> routes() {
        Map<String, Handler> r = new LinkedHashMap<>();
        r.put("sections.list", this::list);
        r.put("sections.history", this::history);
        r.put("sections.lock", p -> lock(p, true));
        r.put("sections.unlock", p -> lock(p, false));
        return r;
    }

    private JsonNode list(ObjectNode p) throws BadRequest, IOException {
        only(p, "path");
        String path = str(p, "path", true);
        ReadResult file = unwrap(svc.read(path, null, null, false));
        Map<String, Event> last = svc.sections().lastChanges(path);
        ObjectNode o = F.objectNode();
        o.put("path", path);
        // A peer's file is read at its mounted commit; its ledger is not read, so no last_change.
        file.peer().ifPresent(peer -> o.put("peer", peer));
        o.put("commit", file.commit());
        java.util.Set<String> locked = SectionLocks.lockedIn(file.content());
        ArrayNode out = o.putArray("sections");
        for (SectionBodies.Listed s : SectionBodies.list(file.content())) {
            Event e = last.get(s.key());
            out.addObject()
                    .put("name", s.heading())
                    .put("anchor", s.anchor()) // JSON null for a heading without one
                    .put("content", s.body())
                    .put("locked", s.anchor() != null && locked.contains(s.anchor()) || locked.contains(s.heading()))
                    .set("last_change", e == null ? F.nullNode() : e.toJson());
        }
        return o;
    }

    private JsonNode lock(ObjectNode p, boolean lock) throws BadRequest, IOException {
        only(p, "path", "section", "actor", "rationale");
        String path = str(p, "path", true);
        java.util.Optional<dev.memoryd.daemon.api.Failure> onPeer =
                svc.peers().refuseWrite(path, lock ? "sections.lock" : "sections.unlock");
        if (onPeer.isPresent()) {
            throw new BadRequest(onPeer.get());
        }
        WriteOutcome out = await(unwrap(svc.locks()
                .set(path, str(p, "section", true), lock, str(p, "actor", true), str(p, "rationale", false))));
        ObjectNode o = F.objectNode();
        o.put("changed", out instanceof WriteOutcome.Committed);
        o.put("commit", out instanceof WriteOutcome.Committed c ? c.commit() : ((WriteOutcome.Unchanged) out).commit());
        if (out instanceof WriteOutcome.Committed c) {
            o.put("event_id", c.events().get(0).eventId());
            o.put("token", c.events().get(0).token());
        }
        o.put("locked", lock);
        return o;
    }

    private JsonNode history(ObjectNode p) throws BadRequest, IOException {
        only(p, "path", "section", "offset", "limit");
        String path = str(p, "path", true);
        java.util.Optional<String> peer = svc.peers().peerOf(path);
        if (peer.isPresent()) {
            throw new BadRequest(new dev.memoryd.daemon.api.Failure(
                    ErrorReason.INVALID_REQUEST,
                    "'" + path + "' is in peer '"
                            + peer.get()
                            + "', whose ledger is not read here: its section history is served by a daemon serving that"
                            + " root",
                    dev.memoryd.daemon.api.Failure.ordered("field", "path", "peer", peer.get())));
        }
        SectionBodies.Listed section = sectionOf(unwrap(svc.read(path, null, null, false)), str(p, "section", true));
        int offset = p.has("offset") ? intParam(p, "offset", 0, Integer.MAX_VALUE) : 0;
        int limit = p.has("limit") ? intParam(p, "limit", 1, 1000) : 100;
        SectionIndex.Page page = svc.sections().history(path, section.key(), offset, limit);
        ObjectNode o = F.objectNode();
        o.put("path", path);
        o.put("section", section.anchor()); // JSON null for a heading without one
        o.put("total", page.total());
        ArrayNode evs = o.putArray("events");
        page.events().forEach(e -> evs.add(e.toJson()));
        return o;
    }

    /** The section {@code section} names (its anchor or its heading); unknown_section if none. */
    private static SectionBodies.Listed sectionOf(ReadResult file, String section) throws BadRequest {
        for (SectionBodies.Listed s : SectionBodies.list(file.content())) {
            if (section.equals(s.anchor()) || section.equals(s.heading())) {
                return s;
            }
        }
        throw new BadRequest(ErrorReason.UNKNOWN_SECTION, "no section '" + section + "' in " + file.path());
    }
}
