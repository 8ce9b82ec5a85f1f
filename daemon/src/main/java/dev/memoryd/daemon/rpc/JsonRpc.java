package dev.memoryd.daemon.rpc;

import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.memoryd.daemon.ErrorReason;

/** JSON-RPC 2.0 envelopes. Stateless and thread-safe. */
public final class JsonRpc {
  public static final ObjectMapper MAPPER = new ObjectMapper();

  private JsonRpc() {}

  public static String result(JsonNode id, JsonNode result) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("jsonrpc", "2.0");
    o.set("id", id);
    o.set("result", result);
    return write(o);
  }

  public static String error(JsonNode id, ErrorReason reason, String message,
      Map<String, Object> details) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("jsonrpc", "2.0");
    o.set("id", id);
    ObjectNode err = o.putObject("error");
    err.put("code", reason.code());
    err.put("message", message);
    ObjectNode data = err.putObject("data");
    data.put("reason", reason.wireName());
    if (details != null) {
      details.forEach((k, v) -> data.set(k, MAPPER.valueToTree(v)));
    }
    return write(o);
  }

  static String write(JsonNode n) {
    try {
      return MAPPER.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
