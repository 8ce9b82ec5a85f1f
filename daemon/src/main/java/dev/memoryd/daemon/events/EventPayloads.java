package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.grammar.substrate.ChunkFile;
import dev.memoryd.ledger.Event;
import java.util.Optional;

/**
 * The one parser of ledger payloads into {@link EventPayload}s. A payload is read as recorded, so
 * one that does not have its op's shape (written by another version, or tampered with) is empty
 * here rather than an exception; {@code ledger verify} is what judges the lines.
 */
public final class EventPayloads {
    private EventPayloads() {}

    /** {@code e}'s payload when {@code e} is a {@code branch_fork} of the expected shape. */
    public static Optional<ForkPayload> fork(Event e) {
        if (!ForkPayload.OP.equals(e.op()) || e.payload() == null) {
            return Optional.empty();
        }
        return fork(e.payload());
    }

    /** A {@code branch_fork} payload; empty when it lacks {@code fork.from} or {@code fork.from_commit}. */
    public static Optional<ForkPayload> fork(JsonNode p) {
        JsonNode f = p.path("fork");
        if (!f.path("from").isTextual() || !f.path("from_commit").isTextual()) {
            return Optional.empty();
        }
        JsonNode l = p.get("link");
        ForkPayload.Link link = l != null && l.isObject()
                ? new ForkPayload.Link(
                        l.path("branch").asText(),
                        l.path("seq").asLong(),
                        l.path("line_hash").asText())
                : null;
        String recorded =
                f.path("recorded_commit").isTextual() ? f.get("recorded_commit").asText() : null;
        String replica = f.path("replica").isTextual() ? f.get("replica").asText() : null;
        try {
            return Optional.of(new ForkPayload(
                    link, f.get("from").asText(), f.get("from_commit").asText(), recorded, replica, Decl.of(p)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** {@code e}'s payload when {@code e} is a {@code declare} of the expected shape. */
    public static Optional<DeclarePayload> declare(Event e) {
        if (!DeclarePayload.OP.equals(e.op()) || e.payload() == null) {
            return Optional.empty();
        }
        return declare(e.payload());
    }

    /** A {@code declare} payload: {@code chunk} (a chunk's record) or {@code removed} with {@code removed_at}. */
    public static Optional<DeclarePayload> declare(JsonNode p) {
        Decl decl = Decl.of(p);
        JsonNode provenance = p.get("provenance");
        if (p.path("removed").isTextual() && p.path("removed_at").isTextual()) {
            return Optional.of(new DeclarePayload.Removed(
                    p.get("removed").asText(), p.get("removed_at").asText(), decl, provenance));
        }
        if (p.path("chunk").isObject()) {
            // A chunk memoryd recorded that does not parse is a fault, not a shape to skip: it throws.
            return Optional.of(new DeclarePayload.Put(ChunkFile.fromJson(p.get("chunk")), decl, provenance));
        }
        return Optional.empty();
    }
}
