package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks each tool result's structured content against the tool's {@code outputSchema}, as the
 * SDK asks on every call, at the cost of the check alone. The SDK's own validator (2.0.1) finds
 * its compiled schema by the schema map's {@code hashCode}, recomputed over the whole nested
 * schema on every call, converts the result to a tree it already was, and prints it again; here
 * the compiled schema is kept per schema instance (a tool's {@code outputSchema}, fixed when the
 * server is built) and a result that is a tree ({@link ToolReplies} passes the daemon's reply as
 * one) is checked as it is. A valid result's response carries no printed JSON: the SDK uses that
 * only to fill an empty {@code content}, and every result here has its text. Checking schemas
 * themselves (at registration) is the SDK validator's. Thread-safe.
 */
final class ResultSchemas implements JsonSchemaValidator {
    private final ObjectMapper json;
    private final JsonSchemaValidator sdk;
    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(Dialects.getDraft202012());
    private final Map<Map<String, Object>, Schema> compiled = Collections.synchronizedMap(new IdentityHashMap<>());

    ResultSchemas(ObjectMapper json) {
        this.json = json;
        this.sdk = new DefaultJsonSchemaValidator(json);
    }

    @Override
    public ValidationResponse validate(Map<String, Object> schema, Object structuredContent) {
        if (schema == null || structuredContent == null) {
            throw new IllegalArgumentException("a schema and structured content are both required");
        }
        Schema s = compiled.computeIfAbsent(schema, m -> registry.getSchema(json.valueToTree(m)));
        JsonNode content = structuredContent instanceof JsonNode n ? n : json.valueToTree(structuredContent);
        List<Error> errors = s.validate(content);
        return errors.isEmpty()
                ? ValidationResponse.asValid(null)
                : ValidationResponse.asInvalid(
                        "Validation failed: structuredContent does not match tool outputSchema. Validation errors: "
                                + errors);
    }

    @Override
    public ValidationResponse validateSchema(Map<String, Object> schema) {
        return sdk.validateSchema(schema);
    }
}
