package dev.memoryd.daemon.rpc.catalogue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.memoryd.daemon.api.ErrorReason;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The socket protocol's methods, each declared once in {@code methods.yaml} beside this class:
 * the dispatcher routes from it and lists its names as the known methods, {@code memoryd mcp}
 * derives one tool per method from it, and {@link ProtocolDoc} renders docs/PROTOCOL.md from it,
 * so the three cannot disagree. Immutable; loaded once and checked as it loads (a malformed
 * entry is an {@link IllegalStateException} at the first use, which every test meets).
 */
public final class MethodCatalogue {
    private static final String RESOURCE = "methods.yaml";
    private static final Set<String> FLAGS = Set.of("read_only", "destructive", "idempotent");
    private static final Set<String> KEYS = Set.of(
            "name", "group", "flags", "summary", "description", "params", "required", "returns", "result", "errors");

    private static final class Holder {
        static final MethodCatalogue INSTANCE = load();
    }

    private final List<MethodSpec> methods;
    private final Map<String, MethodSpec> byName;

    private MethodCatalogue(List<MethodSpec> methods) {
        this.methods = List.copyOf(methods);
        Map<String, MethodSpec> m = new LinkedHashMap<>();
        methods.forEach(x -> m.put(x.name(), x));
        this.byName = Collections.unmodifiableMap(m);
    }

    /** The catalogue. */
    public static MethodCatalogue get() {
        return Holder.INSTANCE;
    }

    /** Every method, in declaration order. */
    public List<MethodSpec> methods() {
        return methods;
    }

    /** Every method name, in declaration order. */
    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    public Optional<MethodSpec> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    private static MethodCatalogue load() {
        try (InputStream in = MethodCatalogue.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing beside " + MethodCatalogue.class.getName());
            }
            return parse(new YAMLMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    /** Builds a catalogue from its YAML tree, checking every entry. */
    static MethodCatalogue parse(JsonNode root) {
        JsonNode list = root.path("methods");
        if (!list.isArray() || list.isEmpty()) {
            throw new IllegalStateException(RESOURCE + ": methods must be a non-empty list");
        }
        List<MethodSpec> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (JsonNode m : list) {
            MethodSpec s = spec(m);
            if (!names.add(s.name())) {
                throw new IllegalStateException(RESOURCE + ": method " + s.name() + " is declared twice");
            }
            out.add(s);
        }
        return new MethodCatalogue(out);
    }

    private static MethodSpec spec(JsonNode m) {
        String name = text(m, "name", "?");
        m.fieldNames().forEachRemaining(k -> {
            if (!KEYS.contains(k)) {
                throw bad(name, "unknown key '" + k + "'");
            }
        });
        Set<String> flags = new HashSet<>();
        for (JsonNode f : m.path("flags")) {
            if (!FLAGS.contains(f.asText())) {
                throw bad(name, "unknown flag '" + f.asText() + "'");
            }
            flags.add(f.asText());
        }
        if (flags.contains("read_only") && flags.contains("destructive")) {
            throw bad(name, "read_only and destructive exclude each other");
        }
        JsonNode props = m.get("params");
        if (props == null || !props.isObject()) {
            throw bad(name, "params must be a mapping (empty for none)");
        }
        ObjectNode params = JsonNodeFactory.instance.objectNode();
        params.put("type", "object");
        params.set("properties", props.deepCopy());
        ArrayNode required = JsonNodeFactory.instance.arrayNode();
        for (JsonNode r : m.path("required")) {
            if (!props.has(r.asText())) {
                throw bad(name, "required parameter '" + r.asText() + "' is not among its params");
            }
            required.add(r.asText());
        }
        if (!required.isEmpty()) {
            params.set("required", required);
        }
        params.put("additionalProperties", false);
        JsonNode result = m.get("result");
        if (result != null
                && !(result.isObject() && "object".equals(result.path("type").asText()))) {
            throw bad(name, "result must be an object schema");
        }
        List<ErrorReason> errors = new ArrayList<>();
        for (JsonNode e : m.path("errors")) {
            try {
                errors.add(ErrorReason.fromWire(e.asText()));
            } catch (IllegalArgumentException x) {
                throw bad(name, "unknown error reason '" + e.asText() + "'");
            }
        }
        return new MethodSpec(
                name,
                text(m, "group", name),
                text(m, "summary", name),
                text(m, "description", name),
                params,
                text(m, "returns", name),
                result == null ? null : (ObjectNode) result.deepCopy(),
                List.copyOf(errors),
                flags.contains("read_only"),
                flags.contains("destructive"),
                flags.contains("idempotent"));
    }

    private static String text(JsonNode m, String key, String method) {
        JsonNode v = m.get(key);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw bad(method, key + " must be a non-blank string");
        }
        return v.asText().strip();
    }

    private static IllegalStateException bad(String method, String problem) {
        return new IllegalStateException(RESOURCE + ": method " + method + ": " + problem);
    }
}
