package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.Objects;

/**
 * The payload of {@code conversation_append}: the session, the slice that holds it, whether this
 * append created that slice, and the {@code turns} as recorded. The turns stay the recorded JSON
 * node itself: the conversation store parses them with its own rules, and recognises an append it
 * is writing by the identity of their first value, which a copy would lose.
 */
public record ConversationAppendPayload(String sessionId, String sliceId, boolean newSlice, ArrayNode turns) {
    public static final String OP = "conversation_append";

    public ConversationAppendPayload {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(sliceId, "sliceId");
        Objects.requireNonNull(turns, "turns");
    }
}
