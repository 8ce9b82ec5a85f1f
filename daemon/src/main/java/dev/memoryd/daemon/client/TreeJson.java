package dev.memoryd.daemon.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * JSON trees read and printed with Jackson's streaming parser and generator alone, the same text
 * as {@code ObjectMapper}'s {@code readTree}, {@code writeValueAsString} and default pretty
 * printer give for trees. A command that starts a JVM for one call pays for the first
 * {@code ObjectMapper} (its default date format builds a calendar and loads locale data, tens of
 * milliseconds) although a tree never needs it; the socket client and the command line's printing
 * use this instead. Numbers are read as {@code readTree} reads them (int, long or big integer by
 * size; floating point as double). Stateless and thread-safe.
 */
public final class TreeJson {
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private TreeJson() {}

    /** The tree of one JSON document ({@link MissingNode} for blank text). */
    public static JsonNode read(String json) throws IOException {
        try (JsonParser p = FACTORY.createParser(json)) {
            JsonToken t = p.nextToken();
            return t == null ? MissingNode.getInstance() : value(p, t);
        }
    }

    /** {@code node} as one line of JSON. */
    public static String write(JsonNode node) {
        return print(node, false);
    }

    /** {@code node} indented as {@code ObjectMapper}'s default pretty printer does. */
    public static String pretty(JsonNode node) {
        return print(node, true);
    }

    private static String print(JsonNode node, boolean pretty) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(w)) {
            if (pretty) {
                g.setPrettyPrinter(new DefaultPrettyPrinter());
            }
            emit(g, node);
        } catch (IOException e) {
            throw new UncheckedIOException("printing a tree into a string", e);
        }
        return w.toString();
    }

    /** The node's own {@code serialize} needs a serializer provider, which only a mapper makes. */
    private static void emit(JsonGenerator g, JsonNode node) throws IOException {
        if (node.isObject()) {
            g.writeStartObject();
            for (var e : node.properties()) {
                g.writeFieldName(e.getKey());
                emit(g, e.getValue());
            }
            g.writeEndObject();
        } else if (node.isArray()) {
            g.writeStartArray();
            for (JsonNode e : node) {
                emit(g, e);
            }
            g.writeEndArray();
        } else if (node.isTextual()) {
            g.writeString(node.textValue());
        } else if (node.isNumber()) {
            switch (node.numberType()) {
                case INT -> g.writeNumber(node.intValue());
                case LONG -> g.writeNumber(node.longValue());
                case BIG_INTEGER -> g.writeNumber(node.bigIntegerValue());
                case FLOAT -> g.writeNumber(node.floatValue());
                case DOUBLE -> g.writeNumber(node.doubleValue());
                default -> g.writeNumber(node.decimalValue());
            }
        } else if (node.isBoolean()) {
            g.writeBoolean(node.booleanValue());
        } else if (node.isNull()) {
            g.writeNull();
        } else {
            g.writeRawValue(node.toString()); // binary or a Java object in a tree: the mapper prints those
        }
    }

    private static JsonNode value(JsonParser p, JsonToken t) throws IOException {
        return switch (t) {
            case START_OBJECT -> {
                ObjectNode o = NODES.objectNode();
                for (JsonToken k = p.nextToken(); k == JsonToken.FIELD_NAME; k = p.nextToken()) {
                    String name = p.currentName();
                    o.set(name, value(p, p.nextToken()));
                }
                yield o;
            }
            case START_ARRAY -> {
                ArrayNode a = NODES.arrayNode();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    a.add(value(p, e));
                }
                yield a;
            }
            case VALUE_STRING -> NODES.textNode(p.getText());
            case VALUE_NUMBER_INT ->
                switch (p.getNumberType()) {
                    case INT -> NODES.numberNode(p.getIntValue());
                    case LONG -> NODES.numberNode(p.getLongValue());
                    default -> NODES.numberNode(p.getBigIntegerValue());
                };
            case VALUE_NUMBER_FLOAT -> NODES.numberNode(p.getDoubleValue());
            case VALUE_TRUE -> NODES.booleanNode(true);
            case VALUE_FALSE -> NODES.booleanNode(false);
            case VALUE_NULL -> NODES.nullNode();
            default -> throw new IOException("unexpected JSON token " + t);
        };
    }
}
