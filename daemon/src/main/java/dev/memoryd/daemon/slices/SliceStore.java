package dev.memoryd.daemon.slices;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.layout.RootLayout;
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
import dev.memoryd.grammar.slices.Staleness;
import dev.memoryd.ledger.IdGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * Generic Slices v1 files under {@code .slices/<id>.slice}: creation, JSONL rows appended under
 * the slice's contract (append-only with supersession; {@code write} and {@code overflow}
 * enforced), and listings with hash- and time-based staleness. Pointer slices are listed from
 * their frontmatter alone; their payload is never opened. Writes go through the writer (events
 * {@code slice_create} and {@code append_row}, one commit each); reads scan the working tree.
 * Thread-safe.
 */
public final class SliceStore {
    public static final String OP_CREATE = "slice_create";
    public static final String OP_APPEND_ROW = "append_row";
    static final Pattern ID = Pattern.compile("[0-9A-Za-z_-]{1,128}");
    private static final YAMLMapper YAML = dev.memoryd.grammar.frontmatter.Frontmatter.WRITER;

    private final WritePipeline writer;
    private final IdGenerator ids;
    private final Path root;
    private final long maxBodyBytes;

    /** A store that reads and lists the working tree's slices; it has no writer, so it creates and appends nothing. */
    public static SliceStore readOnly(Path root, long maxBodyBytes) {
        return new SliceStore(null, null, root, maxBodyBytes);
    }

    public SliceStore(WritePipeline writer, IdGenerator ids, Path root, long maxBodyBytes) {
        this.writer = writer;
        this.ids = ids;
        this.root = root;
        this.maxBodyBytes = maxBodyBytes;
        if (writer != null) {
            writer.registerReplayer(OP_CREATE, evs -> {
                JsonNode p = evs.get(0).payload();
                return new Create((ObjectNode) p.get("slice"), p.path("body").asText(""));
            });
            writer.registerReplayer(OP_APPEND_ROW, evs -> {
                JsonNode p = evs.get(0).payload();
                return new AppendRow(p.get("slice_id").asText(), p.get("row"), maxBodyBytes);
            });
        }
    }

    static RepoPath pathOf(String id) {
        return RepoPath.of(".slices/" + id + ".slice");
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
        if (id == null || !ID.matcher(id).matches()) {
            return CompletableFuture.completedFuture(new WriteOutcome.Rejected(
                    -1, Failure.of(ErrorReason.INVALID_REQUEST, "id must match " + ID.pattern())));
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

    /** A slice file's text from the working tree. */
    /** A slice's text in a set of files by path (a peer's, at its mounted commit); empty for a malformed id. */
    public static Optional<String> readIn(Map<String, String> files, String id) {
        return id != null && ID.matcher(id).matches()
                ? Optional.ofNullable(files.get(pathOf(id).value()))
                : Optional.empty();
    }

    public Optional<String> read(String id) {
        if (id == null || !ID.matcher(id).matches()) {
            return Optional.empty();
        }
        Path f = root.resolve(pathOf(id).value());
        try {
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            return Optional.of(Files.readString(f, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every slice (memory files and {@code .slices/}) with its staleness as of {@code now}. */
    public List<ObjectNode> list(Instant now, java.time.Duration halfLife) throws IOException {
        List<Path> files = new ArrayList<>();
        for (String p : RootLayout.contentFilesOnDisk(root)) {
            files.add(root.resolve(p));
        }
        Map<String, String> hashById = new HashMap<>();
        Map<Path, SliceFile> parsed = new HashMap<>();
        for (Path f : files) {
            byte[] bytes = Files.readAllBytes(f);
            SliceFile sf = SliceFile.parse(new String(bytes, StandardCharsets.UTF_8));
            parsed.put(f, sf);
            sf.slice().map(s -> s.path("id").asText(null)).ifPresent(id -> hashById.put(id, Staleness.sha256(bytes)));
        }
        List<ObjectNode> out = new ArrayList<>();
        for (Path f : files) {
            SliceFile sf = parsed.get(f);
            Optional<JsonNode> sl = sf.slice();
            if (sl.isEmpty()) {
                continue;
            }
            JsonNode s = sl.get();
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("id", s.path("id").asText(null));
            o.put("path", root.relativize(f).toString().replace('\\', '/'));
            o.put("title", s.path("title").asText(null));
            o.put("kind", s.path("kind").asText("context"));
            o.put("body_type", s.path("body").path("type").asText(null));
            Instant updated = updated(s, sf);
            if (updated != null) {
                Staleness.TimeStaleness t = Staleness.time(updated, now, halfLife);
                o.put("updated", updated.toString());
                o.put("staleness", Math.round(t.staleness() * 1000) / 1000.0);
                o.put("label", t.label().name());
                o.put("age", t.age());
                o.put("tag", t.tag());
            }
            Staleness.derived(s, id -> Optional.ofNullable(hashById.get(id))).ifPresent(d -> {
                ObjectNode dn = o.putObject("derived_from");
                dn.put("id", d.sourceId());
                dn.put("status", d.status().name());
            });
            out.add(o);
        }
        return out;
    }

    /** Last update: newest row of a JSONL body, else {@code meta.last_updated}, else {@code meta.created_at}. */
    private static Instant updated(JsonNode s, SliceFile sf) {
        if ("jsonl".equals(s.path("body").path("type").asText())) {
            Instant newest = null;
            for (JsonlBody.Row r : JsonlBody.rows(sf.body())) {
                if (r.createdAt() != null && (newest == null || r.createdAt().isAfter(newest))) {
                    newest = r.createdAt();
                }
            }
            if (newest != null) {
                return newest;
            }
        }
        for (String k : new String[] {"last_updated", "created_at"}) {
            String v = s.path("meta").path(k).asText(null);
            if (v != null) {
                try {
                    return Instant.parse(v);
                } catch (DateTimeParseException e) {
                    // not a timestamp: try the next field
                }
            }
        }
        return null;
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
            RepoPath path = pathOf(s.get("id").asText());
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
            RepoPath path = pathOf(id);
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
