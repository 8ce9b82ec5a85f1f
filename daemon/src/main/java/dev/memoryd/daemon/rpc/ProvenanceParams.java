package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.write.Provenance;
import java.util.Map;

/**
 * The provenance parameters of a content write ({@code source}, {@code confidence},
 * {@code context}, {@code session_id}) and what the write records from them. They are checked on
 * every root, so a request is valid or not whatever the root's settings; a root with provenance
 * off records nothing of them. {@code agent} is the request's actor; {@code session} is
 * {@code session_id}, else the {@code tool_call_id}, else the client's connection.
 */
final class ProvenanceParams {
    /** The parameters every content write takes for provenance. */
    static final String[] NAMES = {"source", "confidence", "context", "session_id"};

    private ProvenanceParams() {}

    /**
     * What to record for a request with params {@code p} on a root with provenance {@code on}:
     * null when off. {@code toolCallId} is the request's tool-call id, if the method has one.
     */
    static Provenance of(boolean on, ObjectNode p, String toolCallId) throws BadRequest {
        String source = text(p, "source");
        if (source != null && !Provenance.SOURCES.contains(source)) {
            throw invalid(
                    "source",
                    "parameter 'source' must be one of " + String.join(", ", Provenance.SOURCES) + ", not '" + source
                            + "'");
        }
        Double confidence = null;
        JsonNode c = p.get("confidence");
        if (c != null && !c.isNull()) {
            if (!c.isNumber() || c.asDouble() < 0 || c.asDouble() > 1) {
                throw invalid("confidence", "parameter 'confidence' must be a number from 0 to 1");
            }
            confidence = c.asDouble();
        }
        String context = text(p, "context");
        String session = text(p, "session_id");
        if (!on) {
            return null;
        }
        String actor = Params.str(p, "actor", false);
        String agent = actor == null || actor.isBlank() ? "agent" : actor; // as the write records its actor
        if (session == null) {
            session = toolCallId != null && !toolCallId.isBlank() ? toolCallId : RequestContext.connection();
        }
        return new Provenance(agent, session, source, confidence, context);
    }

    /** A string parameter: absent or null is null; anything else but a non-blank string is refused. */
    private static String text(ObjectNode p, String name) throws BadRequest {
        JsonNode n = p.get(name);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual() || n.asText().isBlank()) {
            throw invalid(name, "parameter '" + name + "' must be a non-blank string");
        }
        return n.asText();
    }

    private static BadRequest invalid(String field, String message) {
        return new BadRequest(new Failure(ErrorReason.INVALID_REQUEST, message, Map.of("field", field)));
    }

    /** {@code only}'s allowed names plus those of {@link #NAMES} not among them. */
    static String[] with(String... names) {
        java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>(java.util.List.of(names));
        out.addAll(java.util.List.of(NAMES));
        return out.toArray(String[]::new);
    }
}
