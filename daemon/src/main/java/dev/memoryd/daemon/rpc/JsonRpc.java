package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.client.JsonSyntaxError;
import java.util.LinkedHashMap;
import java.util.Map;

/** JSON-RPC 2.0 envelopes. Stateless and thread-safe. */
public final class JsonRpc {
    public static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonRpc() {}

    /** Reads one request line; content after the first JSON value is malformed, not ignored. */
    private static final ObjectReader REQUEST = MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** The JSON value of one request line. */
    static JsonNode readRequest(String line) throws JsonProcessingException {
        return REQUEST.readTree(line);
    }

    /**
     * A malformed request line as a one-line {@code invalid_request}: where (line, column, also in
     * {@code details}) and what the reader expected there. {@code rpc_code} is JSON-RPC's -32700.
     */
    static Failure malformed(JsonProcessingException e) {
        JsonSyntaxError err = JsonSyntaxError.of(e);
        if (e instanceof MismatchedInputException && e.getOriginalMessage().startsWith("Trailing token")) {
            err = err.saying("content after the request object; send one JSON object per line");
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("rpc_code", -32700);
        if (err.line() > 0) {
            details.put("line", err.line());
            details.put("column", err.column());
        }
        return new Failure(ErrorReason.INVALID_REQUEST, "malformed JSON" + err.atWhere(), details);
    }

    public static String result(JsonNode id, JsonNode result) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("jsonrpc", "2.0");
        o.set("id", id);
        o.set("result", result);
        return write(o);
    }

    public static String error(JsonNode id, ErrorReason reason, String message, Map<String, Object> details) {
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
