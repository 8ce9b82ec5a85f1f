package dev.memoryd.grammar.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.grammar.MemoryDocument;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The chunks a memory file stands for, so memory and declared chunks share one graph:
 * <ul>
 * <li>{@code users/<u>/overview.md}: the user chunk (named {@code <u>}, root level);
 * <li>{@code users/<u>/parts/<p>/profile.md}: the part (named {@code <p>}), {@code instance} on its user;
 * <li>{@code users/<u>/relationships/<r>/profile.md}: the relationship (named {@code <r>}),
 *     {@code instance} on its user and {@code relates} on each participant part (a connection);
 * <li>{@code notes.md}: a chunk named {@code notes}, {@code instance} on its entity;
 * <li>each H2 section: a chunk named by its anchor, {@code instance} on its file's chunk with
 *     {@code seq} = its position; id {@code <file's slice id>#<anchor>}, body {heading, text}.
 * </ul>
 * File chunks take the file's {@code slice.id}. Participants come from {@code meta.participants},
 * else the Participants section's items. These chunks are {@code derived}: read-only to declare.
 */
public final class MemoryChunks {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private MemoryChunks() {}

    /** The entity file a notes file belongs to ({@code overview.md} or {@code profile.md} beside it). */
    public static Optional<String> entityFileOf(String path) {
        String[] s = path.split("/");
        if (s.length < 3 || !s[0].equals("users") || !path.endsWith(".md")) {
            return Optional.empty();
        }
        if (s.length == 3 && (s[2].equals("overview.md") || s[2].equals("notes.md"))) {
            return Optional.of("users/" + s[1] + "/overview.md");
        }
        if (s.length == 5
                && (s[2].equals("parts") || s[2].equals("relationships"))
                && (s[4].equals("profile.md") || s[4].equals("notes.md"))) {
            return Optional.of("users/" + s[1] + "/" + s[2] + "/" + s[3] + "/profile.md");
        }
        return Optional.empty();
    }

    /**
     * Derives the records of one memory file. {@code sliceIdOf} gives the slice id of another memory
     * file (empty when it does not exist) for placements onto the user, parts and entity.
     */
    public static List<ChunkRecord> derive(String path, String text, Function<String, Optional<String>> sliceIdOf) {
        return derive(path, text, sliceIdOf, id -> null);
    }

    /**
     * As {@link #derive(String, String, Function)}; {@code keptText} gives the text a section's
     * chunk holds now (null: none), which a section that did not change keeps rather than a copy
     * of the same text.
     */
    public static List<ChunkRecord> derive(
            String path, String text, Function<String, Optional<String>> sliceIdOf, Function<String, String> keptText) {
        Optional<String> entityFile = entityFileOf(path);
        MemoryDocument doc = MemoryDocument.parse(text);
        JsonNode fm = doc.frontmatter();
        JsonNode slice = fm == null ? null : fm.get("slice");
        if (entityFile.isEmpty() || slice == null || !slice.path("id").isTextual()) {
            return List.of();
        }
        String id = slice.get("id").asText();
        String[] s = path.split("/");
        String user = s[1];
        boolean notes = path.endsWith("/notes.md");
        String updated = slice.path("meta").path("last_updated").asText(null);
        ObjectNode body = F.objectNode();
        body.put("title", slice.path("title").asText(""));
        body.put("summary", slice.path("summary").asText(""));
        body.put("path", path);
        List<Placement> ps = new ArrayList<>();
        String name;
        if (notes) {
            name = "notes";
            body.put("entity_type", "notes");
            sliceIdOf
                    .apply(entityFile.get())
                    .ifPresent(e -> ps.add(new Placement(id, e, PlacementType.INSTANCE, null)));
        } else if (s.length == 3) {
            name = user;
            body.put("entity_type", "user");
        } else {
            name = s[3];
            boolean part = s[2].equals("parts");
            body.put("entity_type", part ? "part" : "relationship");
            sliceIdOf
                    .apply("users/" + user + "/overview.md")
                    .ifPresent(u -> ps.add(new Placement(id, u, PlacementType.INSTANCE, null)));
            if (!part) {
                for (String p : participants(slice, doc)) {
                    sliceIdOf
                            .apply("users/" + user + "/parts/" + p + "/profile.md")
                            .filter(x -> !x.equals(id)
                                    && ps.stream().noneMatch(q -> q.scope().equals(x)))
                            .ifPresent(x -> ps.add(new Placement(id, x, PlacementType.RELATES, null)));
                }
            }
        }
        body.put("user_id", user);
        List<ChunkRecord> out = new ArrayList<>();
        out.add(new ChunkRecord(new Chunk(id, name, Spec.EMPTY, body, path, null, true, null, updated), ps));
        long seq = 0;
        Set<String> anchors = new LinkedHashSet<>();
        for (MemoryDocument.Section sec : doc.h2Sections()) {
            seq++;
            if (sec.anchor() == null || !anchors.add(sec.anchor())) {
                continue;
            }
            String sid = id + "#" + sec.anchor();
            ObjectNode sb = F.objectNode();
            sb.put("heading", sec.heading());
            sb.put("text", doc.canonicalBody(sec, keptText.apply(sid)));
            out.add(new ChunkRecord(
                    new Chunk(sid, sec.anchor(), Spec.EMPTY, sb, path, sec.heading(), true, null, updated),
                    List.of(new Placement(sid, id, PlacementType.INSTANCE, seq))));
        }
        return out;
    }

    private static List<String> participants(JsonNode slice, MemoryDocument doc) {
        List<String> out = new ArrayList<>();
        JsonNode p = slice.path("meta").path("participants");
        if (p.isArray()) {
            p.forEach(x -> out.add(x.asText()));
            return out;
        }
        for (MemoryDocument.Section sec : doc.h2Sections()) {
            if ("participants".equals(sec.anchor())) {
                for (String line : doc.canonicalBody(sec).split("\n")) {
                    String t = line.strip();
                    if (t.startsWith("- ") || t.startsWith("* ")) {
                        out.add(t.substring(2).strip());
                    }
                }
            }
        }
        return out;
    }
}
