package dev.memoryd.grammar.slices;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Validates the {@code slice:} frontmatter of a Slices v1 file. Pure and stateless;
 * thread-safe. Problems come in a fixed order: required fields ({@code v}, {@code id},
 * {@code title}, {@code summary}, {@code body.type}) first, then the remaining fields in the
 * order {@code kind, body, payload, contract, links, derived_from, meta}, then unknown keys.
 *
 * <p>Field paths start at the frontmatter root ({@code slice.contract.write},
 * {@code slice.links[1].rel}). String fields accept any YAML scalar read as text (an
 * unquoted {@code title: 2024} is a YAML number); {@code v} must be the string {@code "1"}.
 * Identifiers ({@code slice.id}, link targets, {@code derived_from.id}) are URL-safe tokens
 * {@code [A-Za-z0-9][A-Za-z0-9_-]*} of at most 128 characters (ULIDs and UUIDs fit); a link
 * target may instead be a relative path starting with {@code ./} or {@code ../}. Hashes are
 * {@code sha256:} followed by 64 lowercase hex digits.
 *
 * <p>Rule ids (stable; clients may match on them):
 * <ul>
 * <li>{@code frontmatter}: no complete {@code ---} block, broken YAML, or no {@code slice:} mapping
 *     (only from {@link #validate(SliceFile)})</li>
 * <li>{@code required}: a required field is missing, null or blank</li>
 * <li>{@code version}: {@code slice.v} is not the string {@code "1"}</li>
 * <li>{@code type}: a field has the wrong YAML type (e.g. {@code links} not a list)</li>
 * <li>{@code enum}: a value is not one of the spec's names ({@code kind}, {@code body.type},
 *     {@code conversation.format}, {@code contract.write}, {@code contract.overflow}, {@code rel})</li>
 * <li>{@code format}: an identifier, link target, hash, {@code trace_id} (32 hex) or
 *     {@code span_id} (16 hex) is malformed</li>
 * <li>{@code range}: {@code payload.size} is negative or not an integer</li>
 * <li>{@code pointer}: a {@code pointer} slice whose {@code body.type} is not {@code none}, or
 *     whose file has a non-blank body (the latter only from {@link #validate(SliceFile)})</li>
 * <li>{@code kind-mismatch}: {@code payload} on a non-pointer slice, or a body sub-object
 *     ({@code body.code}, {@code body.conversation}) that does not match {@code body.type}</li>
 * <li>{@code unknown-field}: a key the spec does not define under {@code slice}, {@code body},
 *     {@code body.code}, {@code body.conversation}, {@code payload}, {@code contract}, a link
 *     or {@code derived_from} ({@code meta} is free-form and never checked)</li>
 * <li>{@code body-row}: from {@link #validate(SliceFile)} for a {@code jsonl} body, the row
 *     problems of {@link JsonlBody#validate}; for {@code conversation} and {@code routine}
 *     bodies, a non-blank line that is not a JSON object</li>
 * </ul>
 *
 * <p>A little over 400 lines, a tenth of them this list of rule ids, which belongs beside the
 * checks that report them; the field-level checks are {@link FieldChecks}'.
 */
public final class SliceValidator {

    /** The eight body types. */
    public static final Set<String> BODY_TYPES =
            Set.of("markdown", "jsonl", "none", "code", "conversation", "text", "yaml", "routine");
    /** The two kinds; {@code kind} is optional and a slice without one is treated as {@code context}. */
    public static final Set<String> KINDS = Set.of("context", "pointer");
    /** {@code contract.write}: the spec's three modes plus {@code error} (the pointer example: immutable). */
    public static final Set<String> WRITE_MODES = Set.of("append", "replace", "supersede", "error");
    /** {@code contract.overflow}. */
    public static final Set<String> OVERFLOW_MODES = Set.of("split", "summarize", "archive", "error");
    /** {@code body.conversation.format}. */
    public static final Set<String> CONVERSATION_FORMATS = Set.of("messages", "transcript", "compacted");
    /** The paths of the required fields, in the order they are checked. */
    public static final List<String> REQUIRED_FIELDS =
            List.of("slice.v", "slice.id", "slice.title", "slice.summary", "slice.body.type");

    static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,127}");
    static final Pattern REL_PATH = Pattern.compile("\\.\\.?/[^\\s\\\\]*");
    static final Pattern HASH = Pattern.compile("sha256:[0-9a-f]{64}");
    private static final Pattern HEX32 = Pattern.compile("[0-9a-f]{32}");
    private static final Pattern HEX16 = Pattern.compile("[0-9a-f]{16}");

    private static final Set<String> SLICE_KEYS = Set.of(
            "v", "kind", "id", "title", "summary", "body", "payload", "contract", "links", "derived_from", "meta");
    private static final Set<String> PAYLOAD_KEYS = Set.of("uri", "hash", "size");
    private static final Set<String> CONTRACT_KEYS =
            Set.of("purpose", "exclude", "format", "cleanup", "write", "overflow");
    private static final Set<String> LINK_KEYS = Set.of("rel", "to", "label");
    private static final Set<String> DERIVED_KEYS = Set.of("id", "hash");
    private static final Set<String> CODE_KEYS = Set.of("lang", "extension", "args");
    private static final Set<String> CONVERSATION_KEYS = Set.of(
            "participants",
            "agent_id",
            "session_id",
            "trace_id",
            "span_id",
            "format",
            "includes_tool_calls",
            "includes_compaction");
    /** Body sub-objects and the body type each belongs to. */
    private static final Map<String, String> BODY_SUBOBJECTS = Map.of("code", "code", "conversation", "conversation");

    private SliceValidator() {}

    /**
     * Validates a {@code slice:} mapping (the value under {@code slice}, not the whole
     * frontmatter). A null or non-mapping node yields one {@code required}/{@code type}
     * problem at {@code slice}.
     */
    public static List<SliceProblem> validate(JsonNode slice) {
        List<SliceProblem> out = new ArrayList<>();
        if (slice == null || slice.isNull() || slice.isMissingNode()) {
            out.add(new SliceProblem("slice", "required", "the frontmatter needs a 'slice:' mapping"));
            return out;
        }
        if (!slice.isObject()) {
            out.add(new SliceProblem("slice", "type", "slice must be a mapping"));
            return out;
        }
        JsonNode v = slice.get("v");
        if (FieldChecks.absent(v)) {
            out.add(new SliceProblem("slice.v", "required", "slice.v is required and must be the string \"1\""));
        } else if (!v.isTextual() || !v.asText().equals("1")) {
            out.add(new SliceProblem("slice.v", "version", "slice.v must be the string \"1\", not " + v));
        }
        JsonNode id = slice.get("id");
        if (FieldChecks.requiredText(slice, "id", "slice.id", out)) {
            FieldChecks.format(id.asText(), ID, "slice.id", "an identifier (ULID recommended)", out);
        }
        FieldChecks.requiredText(slice, "title", "slice.title", out);
        FieldChecks.requiredText(slice, "summary", "slice.summary", out);
        JsonNode body = slice.get("body");
        String bodyType = null;
        if (body != null && !body.isNull() && !body.isObject()) {
            out.add(new SliceProblem("slice.body", "type", "slice.body must be a mapping with a 'type'"));
        } else {
            JsonNode bt = body == null ? null : body.get("type");
            if (FieldChecks.absent(bt)) {
                out.add(new SliceProblem(
                        "slice.body.type",
                        "required",
                        "slice.body.type is required (one of " + FieldChecks.sorted(BODY_TYPES) + ")"));
            } else if (!bt.isTextual() || !BODY_TYPES.contains(bt.asText())) {
                out.add(new SliceProblem(
                        "slice.body.type",
                        "enum",
                        "slice.body.type must be one of " + FieldChecks.sorted(BODY_TYPES) + ", not " + bt));
            } else {
                bodyType = bt.asText();
            }
        }

        String kind = "context";
        JsonNode k = slice.get("kind");
        if (k != null && !k.isNull()) {
            if (!k.isTextual() || !KINDS.contains(k.asText())) {
                out.add(new SliceProblem(
                        "slice.kind", "enum", "slice.kind must be one of " + FieldChecks.sorted(KINDS) + ", not " + k));
                kind = null;
            } else {
                kind = k.asText();
            }
        }
        if (body != null && body.isObject()) {
            body(body, bodyType, out);
        }
        if ("pointer".equals(kind) && bodyType != null && !bodyType.equals("none")) {
            out.add(new SliceProblem(
                    "slice.body.type",
                    "pointer",
                    "a pointer slice never carries a body: slice.body.type must be none, not " + bodyType));
        }
        payload(slice.get("payload"), kind, out);
        contract(slice.get("contract"), out);
        links(slice.get("links"), out);
        derivedFrom(slice.get("derived_from"), out);
        JsonNode meta = slice.get("meta");
        if (meta != null && !meta.isNull() && !meta.isObject()) {
            out.add(new SliceProblem("slice.meta", "type", "slice.meta must be a mapping of free-form keys"));
        }
        FieldChecks.unknown(slice, SLICE_KEYS, "slice", out);
        return out;
    }

    /**
     * Validates a whole file: the frontmatter must be present and hold a {@code slice:}
     * mapping; then {@link #validate(JsonNode)}; then the body against its declared kind and
     * type (pointer: blank; jsonl: {@link JsonlBody#validate}; conversation and routine: one
     * JSON object per non-blank line).
     */
    public static List<SliceProblem> validate(SliceFile file) {
        List<SliceProblem> out = new ArrayList<>();
        if (!file.hasFrontmatter()) {
            String why = file.frontmatterError().orElse("the file must open with a '---' YAML frontmatter block");
            out.add(new SliceProblem("slice", "frontmatter", why));
            return out;
        }
        if (file.frontmatter().isEmpty()) {
            out.add(new SliceProblem(
                    "slice",
                    "frontmatter",
                    "frontmatter is not valid YAML: " + file.frontmatterError().orElse("?")));
            return out;
        }
        if (file.slice().isEmpty()) {
            out.add(new SliceProblem("slice", "frontmatter", "the frontmatter needs a 'slice:' mapping"));
            return out;
        }
        JsonNode slice = file.slice().get();
        out.addAll(validate(slice));
        String kind = slice.path("kind").asText("context");
        String type = slice.path("body").path("type").asText("");
        String body = file.body();
        if (kind.equals("pointer") && !body.isBlank()) {
            out.add(new SliceProblem(
                    "body", "pointer", "a pointer file never contains its payload; the body must be empty"));
        } else if (type.equals("jsonl")) {
            for (SliceProblem p : JsonlBody.validate(body)) {
                out.add(new SliceProblem(p.fieldPath(), "body-row", p.message()));
            }
        } else if (type.equals("conversation") || type.equals("routine")) {
            List<JsonlBody.Line> lines = JsonlBody.lines(body);
            for (JsonlBody.Line l : lines) {
                if (l.node() == null || !l.node().isObject()) {
                    out.add(new SliceProblem(
                            "body:" + l.number(),
                            "body-row",
                            type + " bodies are JSONL: line " + l.number() + " is not a JSON object"));
                }
            }
        }
        return out;
    }

    private static void body(JsonNode body, String bodyType, List<SliceProblem> out) {
        for (Map.Entry<String, String> e : BODY_SUBOBJECTS.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .toList()) {
            JsonNode sub = body.get(e.getKey());
            if (sub == null || sub.isNull()) {
                continue;
            }
            String path = "slice.body." + e.getKey();
            if (bodyType != null && !bodyType.equals(e.getValue())) {
                out.add(new SliceProblem(
                        path,
                        "kind-mismatch",
                        path + " is only allowed with slice.body.type " + e.getValue() + ", not " + bodyType));
                continue;
            }
            if (!sub.isObject()) {
                out.add(new SliceProblem(path, "type", path + " must be a mapping"));
                continue;
            }
            if (e.getKey().equals("code")) {
                code(sub, path, out);
            } else {
                conversation(sub, path, out);
            }
        }
        Set<String> keys = new java.util.HashSet<>(BODY_SUBOBJECTS.keySet());
        keys.add("type");
        FieldChecks.unknown(body, keys, "slice.body", out);
    }

    private static void code(JsonNode code, String path, List<SliceProblem> out) {
        FieldChecks.requiredText(code, "lang", path + ".lang", out);
        FieldChecks.optionalText(code, "extension", path + ".extension", out);
        FieldChecks.stringList(code.get("args"), path + ".args", out);
        FieldChecks.unknown(code, CODE_KEYS, path, out);
    }

    private static void conversation(JsonNode c, String path, List<SliceProblem> out) {
        FieldChecks.stringList(c.get("participants"), path + ".participants", out);
        FieldChecks.optionalText(c, "agent_id", path + ".agent_id", out);
        FieldChecks.optionalText(c, "session_id", path + ".session_id", out);
        if (FieldChecks.optionalText(c, "trace_id", path + ".trace_id", out)) {
            FieldChecks.format(
                    c.get("trace_id").asText(),
                    HEX32,
                    path + ".trace_id",
                    "a W3C/OTEL trace id: 32 lowercase hex digits",
                    out);
        }
        if (FieldChecks.optionalText(c, "span_id", path + ".span_id", out)) {
            FieldChecks.format(
                    c.get("span_id").asText(),
                    HEX16,
                    path + ".span_id",
                    "an OTEL span id: 16 lowercase hex digits",
                    out);
        }
        FieldChecks.enumField(c.get("format"), CONVERSATION_FORMATS, path + ".format", out);
        FieldChecks.bool(c.get("includes_tool_calls"), path + ".includes_tool_calls", out);
        FieldChecks.bool(c.get("includes_compaction"), path + ".includes_compaction", out);
        FieldChecks.unknown(c, CONVERSATION_KEYS, path, out);
    }

    private static void payload(JsonNode payload, String kind, List<SliceProblem> out) {
        boolean pointer = "pointer".equals(kind);
        if (payload == null || payload.isNull()) {
            if (pointer) {
                out.add(new SliceProblem(
                        "slice.payload", "required", "a pointer slice needs slice.payload with a uri"));
            }
            return;
        }
        if (!pointer && kind != null) {
            out.add(new SliceProblem(
                    "slice.payload", "kind-mismatch", "slice.payload is only allowed on kind pointer, not " + kind));
            return;
        }
        if (!payload.isObject()) {
            out.add(new SliceProblem("slice.payload", "type", "slice.payload must be a mapping with uri, hash, size"));
            return;
        }
        FieldChecks.requiredText(payload, "uri", "slice.payload.uri", out);
        if (FieldChecks.optionalText(payload, "hash", "slice.payload.hash", out)) {
            FieldChecks.format(
                    payload.get("hash").asText(), HASH, "slice.payload.hash", "sha256:<64 lowercase hex>", out);
        }
        JsonNode size = payload.get("size");
        if (size != null && !size.isNull()) {
            if (!size.isIntegralNumber()) {
                out.add(new SliceProblem(
                        "slice.payload.size",
                        "range",
                        "slice.payload.size must be a non-negative integer (bytes), not " + size));
            } else if (size.bigIntegerValue().signum() < 0) {
                out.add(new SliceProblem(
                        "slice.payload.size", "range", "slice.payload.size must not be negative, not " + size));
            }
        }
        FieldChecks.unknown(payload, PAYLOAD_KEYS, "slice.payload", out);
    }

    private static void contract(JsonNode c, List<SliceProblem> out) {
        if (c == null || c.isNull()) {
            return;
        }
        if (!c.isObject()) {
            out.add(new SliceProblem("slice.contract", "type", "slice.contract must be a mapping"));
            return;
        }
        FieldChecks.optionalText(c, "purpose", "slice.contract.purpose", out);
        FieldChecks.stringList(c.get("exclude"), "slice.contract.exclude", out);
        FieldChecks.optionalText(c, "format", "slice.contract.format", out);
        FieldChecks.optionalText(c, "cleanup", "slice.contract.cleanup", out);
        FieldChecks.enumField(c.get("write"), WRITE_MODES, "slice.contract.write", out);
        FieldChecks.enumField(c.get("overflow"), OVERFLOW_MODES, "slice.contract.overflow", out);
        FieldChecks.unknown(c, CONTRACT_KEYS, "slice.contract", out);
    }

    private static void links(JsonNode links, List<SliceProblem> out) {
        if (links == null || links.isNull()) {
            return;
        }
        if (!links.isArray()) {
            out.add(new SliceProblem("slice.links", "type", "slice.links must be a list of {rel, to, label?}"));
            return;
        }
        for (int i = 0; i < links.size(); i++) {
            JsonNode l = links.get(i);
            String path = "slice.links[" + i + "]";
            if (!l.isObject()) {
                out.add(new SliceProblem(path, "type", path + " must be a mapping with rel and to"));
                continue;
            }
            JsonNode rel = l.get("rel");
            if (FieldChecks.absent(rel)) {
                out.add(new SliceProblem(path + ".rel", "required", path + ".rel is required"));
            } else if (!rel.isTextual() || !Relations.isKnown(rel.asText())) {
                out.add(new SliceProblem(
                        path + ".rel",
                        "enum",
                        path + ".rel '" + rel.asText() + "' is not a relation; one of " + Relations.names()));
            }
            if (FieldChecks.requiredText(l, "to", path + ".to", out)
                    && !isTarget(l.get("to").asText())) {
                out.add(new SliceProblem(
                        path + ".to",
                        "format",
                        path + ".to '" + l.get("to").asText()
                                + "' must be an id (ULID recommended) or a relative path starting with ./ or ../"));
            }
            FieldChecks.optionalText(l, "label", path + ".label", out);
            FieldChecks.unknown(l, LINK_KEYS, path, out);
        }
    }

    private static void derivedFrom(JsonNode d, List<SliceProblem> out) {
        if (d == null || d.isNull()) {
            return;
        }
        if (!d.isObject()) {
            out.add(new SliceProblem(
                    "slice.derived_from", "type", "slice.derived_from must be a mapping with id and hash"));
            return;
        }
        if (FieldChecks.requiredText(d, "id", "slice.derived_from.id", out)) {
            FieldChecks.format(
                    d.get("id").asText(), ID, "slice.derived_from.id", "an identifier (ULID recommended)", out);
        }
        if (FieldChecks.requiredText(d, "hash", "slice.derived_from.hash", out)) {
            FieldChecks.format(
                    d.get("hash").asText(), HASH, "slice.derived_from.hash", "sha256:<64 lowercase hex>", out);
        }
        FieldChecks.unknown(d, DERIVED_KEYS, "slice.derived_from", out);
    }

    /** Whether {@code to} is a valid link target: an identifier or a relative path. */
    public static boolean isTarget(String to) {
        return to != null && (ID.matcher(to).matches() || REL_PATH.matcher(to).matches());
    }

    /** Whether {@code s} is a valid identifier (see the class comment). */
    public static boolean isId(String s) {
        return s != null && ID.matcher(s).matches();
    }

    /** Whether {@code s} is {@code sha256:} followed by 64 lowercase hex digits. */
    public static boolean isHash(String s) {
        return s != null && HASH.matcher(s).matches();
    }
}
