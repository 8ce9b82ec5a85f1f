package dev.memoryd.grammar.substrate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.memoryd.grammar.slices.SliceFile;
import dev.memoryd.jcs.Jcs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The file of a declared chunk, {@code .slices/<id>.slice}: a valid Slices v1 context slice whose
 * {@code meta} (with {@code substrate: chunk}) holds the name, spec and the chunk's own
 * placements, and whose body (type {@code yaml}) is the chunk body as one line of RFC 8785 JSON
 * (JSON is YAML). A removed chunk's file is a tombstone ({@code meta.removed_at}, empty body
 * {@code {}}): the chunk is gone from current reads, its last state stays in the Git history.
 *
 * <p>{@link #render} is deterministic, and {@link #parse} of a rendered record gives it back.
 */
public final class ChunkFile {
    public static final String MARKER = "chunk";
    private static final YAMLMapper YAML = dev.memoryd.grammar.frontmatter.Frontmatter.WRITER;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private ChunkFile() {}

    /** What a chunk file holds: a live record, or the tombstone of a removed chunk. */
    public sealed interface Parsed {
        record Live(ChunkRecord record) implements Parsed {}

        record Removed(String id, String removedAt) implements Parsed {}
    }

    public static String render(ChunkRecord r) {
        Chunk c = r.chunk();
        ObjectNode slice = head(
                c.id(),
                c.name() != null ? c.name() : "chunk " + c.id(),
                "Substrate chunk" + (c.name() != null ? " '" + c.name() + "'" : "") + ", placed on "
                        + r.placements().size() + " scope(s).");
        ObjectNode meta = slice.putObject("meta");
        meta.put("substrate", MARKER);
        if (c.name() != null) {
            meta.put("name", c.name());
        }
        if (!c.spec().isEmpty()) {
            meta.set("spec", c.spec().toJson());
        }
        if (!r.placements().isEmpty()) {
            var arr = meta.putArray("placements");
            for (Placement p : r.placements()) {
                ObjectNode o = arr.addObject();
                o.put("scope", p.scope());
                o.put("type", p.type().wire());
                if (p.seq() != null) {
                    o.put("seq", p.seq());
                }
            }
        }
        if (c.created() != null) {
            meta.put("created_at", c.created());
        }
        if (c.updated() != null) {
            meta.put("last_updated", c.updated());
        }
        return frame(slice, Jcs.canonicalize(c.body()) + "\n");
    }

    public static String renderRemoved(String id, String removedAt) {
        ObjectNode slice =
                head(id, "removed chunk " + id, "A removed substrate chunk; its last state is in the Git history.");
        ObjectNode meta = slice.putObject("meta");
        meta.put("substrate", MARKER);
        meta.put("removed_at", removedAt);
        return frame(slice, "{}\n");
    }

    private static ObjectNode head(String id, String title, String summary) {
        ObjectNode s = F.objectNode();
        s.put("v", "1");
        s.put("id", id);
        s.put("kind", "context");
        s.put("title", title);
        s.put("summary", summary);
        s.putObject("body").put("type", "yaml");
        return s;
    }

    private static String frame(ObjectNode slice, String body) {
        ObjectNode doc = F.objectNode();
        doc.set("slice", slice);
        try {
            return "---\n" + YAML.writeValueAsString(doc) + "---\n" + body;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** True when a slice's frontmatter marks it as a chunk file. */
    public static boolean isChunk(JsonNode slice) {
        return MARKER.equals(slice.path("meta").path("substrate").asText(null));
    }

    /** Reads a chunk file; empty when the text is not a chunk file or is malformed. */
    public static Optional<Parsed> parse(String path, String text) {
        SliceFile sf = SliceFile.parse(text);
        Optional<JsonNode> sl = sf.slice();
        if (sl.isEmpty() || !isChunk(sl.get()) || !sl.get().path("id").isTextual()) {
            return Optional.empty();
        }
        JsonNode s = sl.get();
        String id = s.get("id").asText();
        JsonNode meta = s.path("meta");
        if (meta.hasNonNull("removed_at")) {
            return Optional.of(new Parsed.Removed(id, meta.get("removed_at").asText()));
        }
        try {
            JsonNode body = JSON.readTree(sf.body());
            if (body == null || !body.isObject()) {
                return Optional.empty();
            }
            Spec spec = Spec.fromJson(meta.get("spec"));
            List<Placement> ps = new ArrayList<>();
            for (JsonNode p : meta.path("placements")) {
                Optional<PlacementType> t = PlacementType.parse(p.path("type").asText());
                if (t.isEmpty() || !p.path("scope").isTextual()) {
                    return Optional.empty();
                }
                ps.add(new Placement(
                        id,
                        p.get("scope").asText(),
                        t.get(),
                        p.hasNonNull("seq") ? p.get("seq").asLong() : null));
            }
            Chunk c = new Chunk(
                    id,
                    meta.hasNonNull("name") ? meta.get("name").asText() : null,
                    spec,
                    (ObjectNode) body,
                    path,
                    null,
                    false,
                    meta.path("created_at").asText(null),
                    meta.path("last_updated").asText(null));
            return Optional.of(new Parsed.Live(new ChunkRecord(c, ps)));
        } catch (IOException | Spec.Invalid e) {
            return Optional.empty();
        }
    }

    /** The JSON form a ledger payload carries, from which {@link #fromJson} rebuilds the record. */
    public static ObjectNode toJson(ChunkRecord r) {
        Chunk c = r.chunk();
        ObjectNode o = F.objectNode();
        o.put("id", c.id());
        o.put("name", c.name());
        o.set("spec", c.spec().toJson());
        o.set("body", c.body());
        var arr = o.putArray("placements");
        for (Placement p : r.placements()) {
            ObjectNode po = arr.addObject();
            po.put("scope", p.scope());
            po.put("type", p.type().wire());
            if (p.seq() != null) {
                po.put("seq", p.seq());
            }
        }
        o.put("created_at", c.created());
        o.put("last_updated", c.updated());
        return o;
    }

    public static ChunkRecord fromJson(JsonNode o) {
        String id = o.get("id").asText();
        List<Placement> ps = new ArrayList<>();
        for (JsonNode p : o.path("placements")) {
            ps.add(new Placement(
                    id,
                    p.get("scope").asText(),
                    PlacementType.parse(p.get("type").asText()).orElseThrow(),
                    p.hasNonNull("seq") ? p.get("seq").asLong() : null));
        }
        Spec spec;
        try {
            spec = Spec.fromJson(o.get("spec"));
        } catch (Spec.Invalid e) {
            throw new IllegalArgumentException("bad spec in chunk " + id + ": " + e.getMessage(), e);
        }
        return new ChunkRecord(
                new Chunk(
                        id,
                        o.hasNonNull("name") ? o.get("name").asText() : null,
                        spec,
                        (ObjectNode) o.get("body"),
                        Declare.fileOf(id),
                        null,
                        false,
                        o.path("created_at").asText(null),
                        o.path("last_updated").asText(null)),
                ps);
    }
}
