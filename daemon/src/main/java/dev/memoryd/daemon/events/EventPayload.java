package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A typed payload that is also written back: {@link #toJson} is the JSON the ledger records, whose
 * canonical bytes are those of the payload it was read from. {@link EventPayloads} is the one place
 * a payload read from the ledger becomes one. The records of the other ops read back (say
 * {@link KeyRotatePayload}) hold what readers take from a payload; their payloads are written by
 * the mutations that make them.
 */
public sealed interface EventPayload permits ForkPayload, DeclarePayload {
    /** The op whose payload this is. */
    String op();

    ObjectNode toJson();
}
