package dev.memoryd.daemon.slices;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.slices.JsonlBody;
import dev.memoryd.grammar.slices.SliceFile;
import dev.memoryd.grammar.slices.Staleness;
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
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Generic Slices v1 files as the working tree holds them: one slice's text, and every slice
 * (memory files and {@code .slices/<id>.slice}) listed with hash- and time-based staleness.
 * Pointer slices are listed from their frontmatter alone; their payload is never opened. It
 * reads files and writes none ({@link SliceStore} writes, through the writer). Thread-safe.
 */
public final class SliceFiles {
    static final Pattern ID = Pattern.compile("[0-9A-Za-z_-]{1,128}");

    private final Path root;

    public SliceFiles(Path root) {
        this.root = Objects.requireNonNull(root, "root");
    }

    /** Where slice {@code id} lives; {@code id} matches {@link #ID}. */
    static RepoPath pathOf(String id) {
        return RepoPath.of(".slices/" + id + ".slice");
    }

    /** A slice's text in a set of files by path (a peer's, at its mounted commit); empty for a malformed id. */
    public static Optional<String> readIn(Map<String, String> files, String id) {
        return id != null && ID.matcher(id).matches()
                ? Optional.ofNullable(files.get(pathOf(id).value()))
                : Optional.empty();
    }

    /** A slice's text in the working tree; empty when there is none or the id is malformed. */
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

    /** Every slice (memory files and {@code .slices/}) with its staleness as of {@code now}, in the order the walk finds them. */
    public List<SliceListing> list(Instant now, java.time.Duration halfLife) throws IOException {
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
        List<SliceListing> out = new ArrayList<>();
        for (Path f : files) {
            SliceFile sf = parsed.get(f);
            Optional<JsonNode> sl = sf.slice();
            if (sl.isEmpty()) {
                continue;
            }
            JsonNode s = sl.get();
            Optional<SliceListing.Freshness> fresh = Optional.ofNullable(updated(s, sf))
                    .map(updated -> {
                        Staleness.TimeStaleness t = Staleness.time(updated, now, halfLife);
                        return new SliceListing.Freshness(
                                updated, Math.round(t.staleness() * 1000) / 1000.0, t.label(), t.age());
                    });
            out.add(new SliceListing(
                    s.path("id").asText(null),
                    root.relativize(f).toString().replace('\\', '/'),
                    s.path("title").asText(null),
                    s.path("kind").asText("context"),
                    s.path("body").path("type").asText(null),
                    fresh,
                    Staleness.derived(s, id -> Optional.ofNullable(hashById.get(id)))
                            .map(d -> new SliceListing.DerivedFrom(d.sourceId(), d.status()))));
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
}
