package dev.memoryd.grammar.slices;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * JSONL bodies: one JSON object per line, each with a {@code _meta} envelope, mutated
 * append-only with supersession. Pure and stateless; thread-safe.
 *
 * <p>Row rules (field paths are {@code body:<line>} + the path in the row, lines 1-based
 * within the body; blank lines are ignored):
 * <ul>
 * <li>{@code json}: the line is not a JSON object (duplicate keys count as invalid)</li>
 * <li>{@code required}: {@code _meta}, {@code _meta.id} or {@code _meta.created_at} missing or blank</li>
 * <li>{@code format}: {@code _meta.created_at} is not an ISO-8601 timestamp with a zone
 *     ({@code Z} or an offset)</li>
 * <li>{@code type}: {@code _meta} not an object, {@code _meta.id} not a string,
 *     {@code _meta.supersedes} not a list of strings</li>
 * <li>{@code range}: {@code _meta.confidence} is not a number in [0, 1]</li>
 * <li>{@code duplicate-id}: {@code _meta.id} already used by an earlier row</li>
 * <li>{@code unknown-supersedes}: a {@code _meta.supersedes} entry names no earlier row</li>
 * </ul>
 *
 * <p>Appending ({@link #appendRow}) never edits existing lines: the result is the old body
 * (plus a {@code \n} if it did not end with one) followed by one canonical line and
 * {@code \n}. The canonical line is compact JSON with object keys sorted by UTF-16 code
 * units at every level (the key order of RFC 8785), so {@code _meta} precedes lowercase
 * keys. A row is active when no row supersedes it; {@link #activeRows} therefore returns
 * the newest row of every supersession chain (several, if a chain forked).
 */
public final class JsonlBody {

    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /**
     * One non-blank line of a body.
     *
     * @param number 1-based line number within the body
     * @param text   the line without its line terminator
     * @param node   the parsed JSON, or null if the line is not JSON
     */
    public record Line(int number, String text, JsonNode node) {}

    /**
     * A valid row.
     *
     * @param line       1-based line number within the body
     * @param node       the whole row
     * @param id         {@code _meta.id}
     * @param createdAt  {@code _meta.created_at}
     * @param supersedes {@code _meta.supersedes} (empty if absent)
     */
    public record Row(int line, JsonNode node, String id, Instant createdAt, List<String> supersedes) {}

    /** The outcome of {@link #appendRow}. */
    public sealed interface AppendResult permits Appended, Rejected, Blocked {}

    /**
     * The row was appended.
     *
     * @param body the new body
     * @param line the canonical line appended (without {@code \n})
     * @param row  the row as written (with {@code created_at} filled in if it was missing)
     */
    public record Appended(String body, String line, JsonNode row) implements AppendResult {}

    /**
     * The row (or the existing body) is invalid; nothing was appended.
     *
     * @param problems the row's problems, or the existing body's (rule {@code body-invalid})
     */
    public record Rejected(List<SliceProblem> problems) implements AppendResult {}

    /**
     * The contract does not allow the append as is; nothing was appended.
     *
     * @param check a {@link Contract.WriteCheck.Refused} or {@link Contract.WriteCheck.Overflow}
     */
    public record Blocked(Contract.WriteCheck check) implements AppendResult {}

    private JsonlBody() {}

    /** The non-blank lines of a body, each parsed as JSON where possible ({@code \r\n} accepted). */
    public static List<Line> lines(String body) {
        List<Line> out = new ArrayList<>();
        String[] ls = body.split("\n", -1);
        for (int i = 0; i < ls.length; i++) {
            String l = ls[i].endsWith("\r") ? ls[i].substring(0, ls[i].length() - 1) : ls[i];
            if (l.isBlank()) {
                continue;
            }
            JsonNode n;
            try {
                n = JSON.readTree(l);
            } catch (JsonProcessingException e) {
                n = null;
            }
            out.add(new Line(i + 1, l, n));
        }
        return out;
    }

    /** All problems of a body, in line order. */
    public static List<SliceProblem> validate(String body) {
        List<SliceProblem> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (Line l : lines(body)) {
            List<SliceProblem> ps = rowProblems("body:" + l.number(), l.node(), ids);
            out.addAll(ps);
            String id = idOf(l.node());
            if (id != null) {
                ids.add(id);
            }
        }
        return out;
    }

    /** The valid rows of a body in file order; invalid lines are skipped. */
    public static List<Row> rows(String body) {
        List<Row> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (Line l : lines(body)) {
            String id = idOf(l.node());
            if (rowProblems("", l.node(), ids).isEmpty()) {
                JsonNode meta = l.node().get("_meta");
                out.add(new Row(
                        l.number(),
                        l.node(),
                        id,
                        parseTime(meta.get("created_at").asText()).orElseThrow(),
                        supersedes(meta)));
            }
            if (id != null) {
                ids.add(id);
            }
        }
        return out;
    }

    /**
     * The active rows in file order: the valid rows no other valid row supersedes, i.e. the
     * newest row of each supersession chain.
     */
    public static List<JsonNode> activeRows(String body) {
        List<Row> rows = rows(body);
        Set<String> superseded = new HashSet<>();
        for (Row r : rows) {
            superseded.addAll(r.supersedes());
        }
        return rows.stream()
                .filter(r -> !superseded.contains(r.id()))
                .map(Row::node)
                .toList();
    }

    /**
     * Validates {@code row} against the existing body and appends it as one canonical line.
     * A missing {@code _meta.created_at} is set to {@code now} (ISO-8601 UTC with {@code Z});
     * the caller's node is not modified. The existing body must itself be valid.
     */
    public static AppendResult appendRow(String body, JsonNode row, Instant now) {
        List<SliceProblem> existing = validate(body);
        if (!existing.isEmpty()) {
            List<SliceProblem> ps = existing.stream()
                    .map(p -> new SliceProblem(
                            p.fieldPath(), "body-invalid", "the existing body is invalid: " + p.message()))
                    .toList();
            return new Rejected(ps);
        }
        Set<String> ids = new HashSet<>();
        for (Row r : rows(body)) {
            ids.add(r.id());
        }
        JsonNode toWrite = row;
        if (row != null
                && row.isObject()
                && row.get("_meta") instanceof ObjectNode meta
                && (meta.get("created_at") == null || meta.get("created_at").isNull())) {
            ObjectNode copy = row.deepCopy();
            ((ObjectNode) copy.get("_meta")).put("created_at", DateTimeFormatter.ISO_INSTANT.format(now));
            toWrite = copy;
        }
        int lineNo =
                body.isEmpty() ? 1 : (int) body.chars().filter(c -> c == '\n').count() + (body.endsWith("\n") ? 1 : 2);
        List<SliceProblem> ps = rowProblems("body:" + lineNo, toWrite, ids);
        if (!ps.isEmpty()) {
            return new Rejected(ps);
        }
        String line = canonicalLine(toWrite);
        String prefix = body.isEmpty() || body.endsWith("\n") ? body : body + "\n";
        return new Appended(prefix + line + "\n", line, toWrite);
    }

    /**
     * {@link #appendRow} under a contract: the change is {@link Contract.Change#SUPERSEDE}
     * when the row has a non-empty {@code _meta.supersedes}, else {@code APPEND}; the
     * resulting body must fit {@code limitBytes} (see {@link Contract#check}).
     */
    public static AppendResult appendRow(String body, JsonNode row, Instant now, Contract contract, long limitBytes) {
        AppendResult r = appendRow(body, row, now);
        if (!(r instanceof Appended a)) {
            return r;
        }
        Contract.Change change =
                supersedes(a.row().get("_meta")).isEmpty() ? Contract.Change.APPEND : Contract.Change.SUPERSEDE;
        Contract.WriteCheck check = contract.check(change, a.body(), limitBytes);
        return check instanceof Contract.WriteCheck.Allowed ? a : new Blocked(check);
    }

    /** Compact JSON with object keys sorted at every level. */
    public static String canonicalLine(JsonNode node) {
        try {
            return JSON.writeValueAsString(sorted(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode sorted(JsonNode n) {
        if (n.isObject()) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            TreeSet<String> keys = new TreeSet<>();
            n.fieldNames().forEachRemaining(keys::add);
            for (String k : keys) {
                o.set(k, sorted(n.get(k)));
            }
            return o;
        }
        if (n.isArray()) {
            ArrayNode a = JsonNodeFactory.instance.arrayNode();
            n.forEach(e -> a.add(sorted(e)));
            return a;
        }
        return n;
    }

    private static String idOf(JsonNode row) {
        JsonNode id = row == null ? null : row.path("_meta").get("id");
        return id != null && id.isTextual() && !id.asText().isBlank() ? id.asText() : null;
    }

    private static List<String> supersedes(JsonNode meta) {
        JsonNode s = meta == null ? null : meta.get("supersedes");
        List<String> out = new ArrayList<>();
        if (s != null && s.isArray()) {
            s.forEach(e -> out.add(e.asText()));
        }
        return out;
    }

    private static Optional<Instant> parseTime(String s) {
        try {
            return Optional.of(OffsetDateTime.parse(s, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                    .toInstant());
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** Problems of one row given the ids of the rows before it. */
    private static List<SliceProblem> rowProblems(String at, JsonNode row, Set<String> earlierIds) {
        List<SliceProblem> out = new ArrayList<>();
        if (row == null || !row.isObject()) {
            out.add(new SliceProblem(at, "json", at + " is not a JSON object"));
            return out;
        }
        JsonNode meta = row.get("_meta");
        if (meta == null || meta.isNull()) {
            out.add(new SliceProblem(at + "._meta", "required", "every row needs _meta with id and created_at"));
            return out;
        }
        if (!meta.isObject()) {
            out.add(new SliceProblem(at + "._meta", "type", "_meta must be an object"));
            return out;
        }
        JsonNode id = meta.get("id");
        if (id == null || id.isNull() || (id.isValueNode() && id.asText().isBlank())) {
            out.add(new SliceProblem(at + "._meta.id", "required", "_meta.id is required"));
        } else if (!id.isTextual()) {
            out.add(new SliceProblem(at + "._meta.id", "type", "_meta.id must be a string"));
        } else if (earlierIds.contains(id.asText())) {
            out.add(new SliceProblem(at + "._meta.id", "duplicate-id", "row id '" + id.asText() + "' is already used"));
        }
        JsonNode ca = meta.get("created_at");
        if (ca == null || ca.isNull() || (ca.isValueNode() && ca.asText().isBlank())) {
            out.add(new SliceProblem(at + "._meta.created_at", "required", "_meta.created_at is required"));
        } else if (!ca.isTextual() || parseTime(ca.asText()).isEmpty()) {
            out.add(new SliceProblem(
                    at + "._meta.created_at",
                    "format",
                    "_meta.created_at " + ca + " is not an ISO-8601 timestamp with a zone"));
        }
        JsonNode sup = meta.get("supersedes");
        if (sup != null && !sup.isNull()) {
            if (!sup.isArray()) {
                out.add(new SliceProblem(
                        at + "._meta.supersedes", "type", "_meta.supersedes must be a list of row ids"));
            } else {
                for (int i = 0; i < sup.size(); i++) {
                    JsonNode s = sup.get(i);
                    String p = at + "._meta.supersedes[" + i + "]";
                    if (!s.isTextual()) {
                        out.add(new SliceProblem(p, "type", p + " must be a row id"));
                    } else if (!earlierIds.contains(s.asText())) {
                        out.add(new SliceProblem(
                                p, "unknown-supersedes", "'" + s.asText() + "' is not the id of an earlier row"));
                    }
                }
            }
        }
        JsonNode conf = meta.get("confidence");
        if (conf != null && !conf.isNull() && (!conf.isNumber() || conf.asDouble() < 0 || conf.asDouble() > 1)) {
            out.add(new SliceProblem(
                    at + "._meta.confidence", "range", "_meta.confidence must be a number in [0, 1], not " + conf));
        }
        return out;
    }
}
