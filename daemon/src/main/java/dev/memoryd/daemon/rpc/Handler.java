package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/** Serves one method: its params object in, its result out, a refusal as {@link BadRequest}. */
@FunctionalInterface
interface Handler {
    JsonNode call(ObjectNode params) throws BadRequest, IOException;
}
