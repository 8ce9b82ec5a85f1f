package dev.memoryd.daemon.slices;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.events.AppendRowPayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.SliceCreatePayload;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.Provenance;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.slices.Contract;
import dev.memoryd.grammar.slices.JsonlBody;
import dev.memoryd.grammar.slices.SliceFile;
import dev.memoryd.grammar.slices.SliceProblem;
import dev.memoryd.grammar.slices.SliceValidator;
import dev.memoryd.ledger.IdGenerator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Writes to generic Slices v1 files under {@code .slices/<id>.slice}: creation, and JSONL rows
 * appended under the slice's contract (append-only with supersession; {@code write} and
 * {@code overflow} enforced). Every write goes through the writer (events {@code slice_create}
 * and {@code append_row}, one commit each); reading and listing slices is {@link SliceFiles}'s.
 * Thread-safe.
 */
public final class SliceStore {
    public static final String OP_CREATE = SliceCreatePayload.OP;
    public static final String OP_APPEND_ROW = AppendRowPayload.OP;
    private static final YAMLMapper YAML = dev.memoryd.grammar.frontmatter.Frontmatter.WRITER;

    private final WritePipeline writer;
    private final IdGenerator ids;
    private final long maxBodyBytes;

    /** Registers the replayers of {@code slice_create} and {@code append_row} on {@code writer}. */
    public SliceStore(WritePipeline writer, IdGenerator ids, long maxBodyBytes) {
        this.writer = java.util.Objects.requireNonNull(writer, "writer");
        this.ids = java.util.Objects.requireNonNull(ids, "ids");
        if (maxBodyBytes <= 0) {
            throw new IllegalArgumentException("maxBodyBytes must be positive: " + maxBodyBytes);
        }
        this.maxBodyBytes = maxBodyBytes;
        writer.registerReplayer(OP_CREATE, evs -> {
            SliceCreatePayload p = EventPayloads.sliceCreate(evs.get(0))
                    .orElseThrow(() -> new IllegalStateException(
                            "ledger line " + evs.get(0).seq() + " is a slice creation without its slice"));
            return new Create(p.slice(), p.body());
        });
        writer.registerReplayer(OP_APPEND_ROW, evs -> {
            AppendRowPayload p = EventPayloads.appendRow(evs.get(0))
                    .orElseThrow(() -> new IllegalStateException(
                            "ledger line " + evs.get(0).seq() + " is a row append without its slice or row"));
            return new AppendRow(p.sliceId(), p.row(), maxBodyBytes);
        });
    }

    /** Creates a slice; its id is assigned here. */
    public CompletableFuture<WriteOutcome> create(ObjectNode slice, String body, String actor) {
        return create(slice, body, actor, null);
    }

    /** Creates a slice, recording {@code provenance} (null: none) in its event. */
    public CompletableFuture<WriteOutcome> create(ObjectNode slice, String body, String actor, Provenance provenance) {
        ObjectNode s = slice.deepCopy();
        ObjectNode withId = JsonNodeFactory.instance.objectNode();
        withId.put("v", "1");
        withId.put("id", ids.next().value());
        s.remove("v");
        s.remove("id");
        withId.setAll(s);
        return writer.submit(WriteRequest.of(new Create(withId, body == null ? "" : body), null, actor)
                .withProvenance(provenance));
    }

    public CompletableFuture<WriteOutcome> appendRow(String id, JsonNode row, String actor) {
        return appendRow(id, row, actor, null);
    }

    /**
     * Appends a row; with {@code provenance} (null: none) it becomes the row's
     * {@code _meta.provenance} and its event's {@code payload.provenance} ({@link RowProvenance}).
     */
    public CompletableFuture<WriteOutcome> appendRow(String id, JsonNode row, String actor, Provenance provenance) {
        if (id == null || !SliceFiles.ID.matcher(id).matches()) {
            return CompletableFuture.completedFuture(new WriteOutcome.Rejected(
                    -1, Failure.of(ErrorReason.INVALID_REQUEST, "id must match " + SliceFiles.ID.pattern())));
        }
        JsonNode stamped = row;
        if (provenance != null) {
            RowProvenance.Stamped s = RowProvenance.stamp(row, provenance);
            if (s instanceof RowProvenance.Stamped.Refused r) {
                return CompletableFuture.completedFuture(new WriteOutcome.Rejected(-1, r.failure()));
            }
            stamped = ((RowProvenance.Stamped.Row) s).row();
        }
        return writer.submit(WriteRequest.of(new AppendRow(id, stamped, maxBodyBytes), null, actor)
                .withProvenance(provenance));
    }

    /**
     * The file text of a slice. Keys are written in one fixed order ({@code v}, {@code id}, then
     * sorted) whatever order they arrived in, so replay, which reads the slice back from a ledger
     * payload in RFC 8785 order, writes the same bytes.
     */
    static String render(ObjectNode slice, String body) {
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.set("slice", ordered(slice, true));
        try {
            return "---\n" + YAML.writeValueAsString(doc) + "---\n" + body;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode ordered(JsonNode n, boolean top) {
        if (n.isObject()) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            if (top) {
                for (String k : new String[] {"v", "id"}) {
                    if (n.has(k)) {
                        out.set(k, n.get(k));
                    }
                }
            }
            java.util.List<String> keys = new java.util.ArrayList<>();
            n.fieldNames().forEachRemaining(keys::add);
            java.util.Collections.sort(keys);
            for (String k : keys) {
                if (!out.has(k)) {
                    out.set(k, ordered(n.get(k), false));
                }
            }
            return out;
        }
        if (n.isArray()) {
            com.fasterxml.jackson.databind.node.ArrayNode out = JsonNodeFactory.instance.arrayNode();
            n.forEach(x -> out.add(ordered(x, false)));
            return out;
        }
        return n;
    }

    private static Failure problems(ErrorReason r, String what, List<SliceProblem> ps) {
        StringBuilder sb = new StringBuilder(what);
        List<Map<String, Object>> list = new ArrayList<>();
        for (SliceProblem p : ps) {
            sb.append("; ").append(p.fieldPath()).append(": ").append(p.message());
            list.add(Failure.ordered("field", p.fieldPath(), "rule", p.rule(), "message", p.message()));
        }
        return new Failure(r, sb.toString(), Map.of("problems", list));
    }

    /** Writes a new slice file; its frontmatter must validate (and a pointer has no body). */
    record Create(ObjectNode slice, String body) implements Mutation {
        @Override
        public Result apply(FileSource files, Instant now) {
            ObjectNode s = slice.deepCopy();
            ObjectNode meta =
                    s.has("meta") && s.get("meta").isObject() ? (ObjectNode) s.get("meta") : s.putObject("meta");
            if (!meta.has("created_at")) {
                meta.put("created_at", now.toString());
            }
            String text = render(s, body);
            List<SliceProblem> ps = SliceValidator.validate(SliceFile.parse(text));
            if (!ps.isEmpty()) {
                return new Refused(-1, problems(ErrorReason.SPEC_VIOLATION, "the slice is not valid Slices v1", ps));
            }
            RepoPath path = SliceFiles.pathOf(s.get("id").asText());
            if (files.read(path).isPresent()) {
                return new Refused(-1, Failure.of(ErrorReason.CONFLICT, path.value() + " already exists"));
            }
            ObjectNode payload = JsonNodeFactory.instance.objectNode();
            payload.set("slice", s);
            payload.put("body", body);
            return new Done(
                    Map.of(path, text),
                    List.of(new EventSpec(
                            OP_CREATE,
                            path,
                            null,
                            null,
                            null,
                            payload,
                            List.of(),
                            "created slice " + s.get("id").asText())),
                    true);
        }
    }

    /** Appends one JSONL row under the slice's contract; never edits a row in place. */
    record AppendRow(String id, JsonNode row, long limit) implements Mutation {
        @Override
        public Result apply(FileSource files, Instant now) {
            RepoPath path = SliceFiles.pathOf(id);
            Optional<String> text = files.read(path);
            if (text.isEmpty()) {
                return new Refused(-1, Failure.of(ErrorReason.NOT_FOUND, "no slice " + id + " (" + path.value() + ")"));
            }
            SliceFile sf = SliceFile.parse(text.get());
            Optional<JsonNode> s = sf.slice();
            if (s.isEmpty() || !"jsonl".equals(s.get().path("body").path("type").asText())) {
                return new Refused(
                        -1,
                        Failure.of(
                                ErrorReason.INVALID_OP,
                                "append_row needs a slice with body type jsonl; " + id + " has "
                                        + s.map(x -> x.path("body").path("type").asText("none"))
                                                .orElse("no frontmatter")));
            }
            if (row == null || !row.isObject()) {
                return new Refused(-1, Failure.of(ErrorReason.INVALID_REQUEST, "row must be a JSON object"));
            }
            // Slices v1 requires both; the library would stamp a missing created_at, memoryd does not.
            for (String f : new String[] {"id", "created_at"}) {
                if (!row.path("_meta").path(f).isTextual()) {
                    return new Refused(
                            -1,
                            new Failure(
                                    ErrorReason.SPEC_VIOLATION,
                                    "row._meta." + f + " is required (a string)",
                                    Map.of("field", "row._meta." + f)));
                }
            }
            JsonlBody.AppendResult r = JsonlBody.appendRow(sf.body(), row, now, Contract.of(s.get()), limit);
            if (r instanceof JsonlBody.Rejected rej) {
                return new Refused(-1, problems(ErrorReason.SPEC_VIOLATION, "row refused", rej.problems()));
            }
            if (r instanceof JsonlBody.Blocked b) {
                if (b.check() instanceof Contract.WriteCheck.Overflow o) {
                    return new Refused(
                            -1,
                            new Failure(
                                    ErrorReason.CAP_EXCEEDED,
                                    o.message(),
                                    Failure.ordered(
                                            "rule",
                                            "overflow",
                                            "overflow",
                                            o.policy().name().toLowerCase(),
                                            "size_bytes",
                                            o.sizeBytes(),
                                            "limit_bytes",
                                            o.limitBytes())));
                }
                Contract.WriteCheck.Refused ref = (Contract.WriteCheck.Refused) b.check();
                // Too large with overflow error (or none) is a cap, like the other overflow policies;
                // only the write modes make a row prohibited.
                ErrorReason why = "overflow".equals(ref.rule()) ? ErrorReason.CAP_EXCEEDED : ErrorReason.PROHIBITED;
                return new Refused(-1, new Failure(why, ref.message(), Map.of("rule", ref.rule())));
            }
            JsonlBody.Appended a = (JsonlBody.Appended) r;
            String newText = text.get().substring(0, sf.bodyStart()) + a.body();
            ObjectNode payload = JsonNodeFactory.instance.objectNode();
            payload.put("slice_id", id);
            payload.set("row", a.row());
            return new Done(
                    Map.of(path, newText),
                    List.of(new EventSpec(
                            OP_APPEND_ROW,
                            path,
                            null,
                            null,
                            null,
                            payload,
                            List.of(),
                            "appended a row to slice " + id)),
                    true);
        }
    }
}
