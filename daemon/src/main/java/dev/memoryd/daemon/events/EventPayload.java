package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An event's payload as a typed value, one record per op. {@link EventPayloads} is the one place
 * a payload read from the ledger becomes one; {@link #toJson} is the JSON the ledger records,
 * whose canonical bytes are those of the payload it was read from.
 */
public sealed interface EventPayload permits ForkPayload, DeclarePayload {
    /** The op whose payload this is. */
    String op();

    ObjectNode toJson();
}
