package dev.memoryd.daemon.refs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.slices.SliceFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.ObjectId;

/**
 * A live or retired reference as its pointer file holds it: the pointer's id and path, the
 * repository key ({@link RefStore#MEMORY_REPO} or an absolute path), the file's path there, the
 * pinned commit and blob, and the whole slice (which re-pins and retirements rewrite).
 */
record Ref(
        String id,
        RepoPath pointer,
        String repo,
        String path,
        ObjectId commit,
        ObjectId blob,
        boolean retired,
        ObjectNode slice) {
    /** A pointer id: what {@code .slices/<id>.slice} may be named. */
    static final Pattern ID = Pattern.compile("[0-9A-Za-z_-]{1,128}");

    static RepoPath pathOf(String id) {
        return RepoPath.of(".slices/" + id + ".slice");
    }

    /** A reference from a pointer file's text; empty when the text is not a file reference. */
    static Optional<Ref> parse(RepoPath pointer, String text) {
        Optional<JsonNode> s = SliceFile.parse(text).slice();
        if (s.isEmpty()
                || !s.get().isObject()
                || !"pointer".equals(s.get().path("kind").asText())) {
            return Optional.empty();
        }
        JsonNode m = s.get().path("meta");
        if (!"git".equals(m.path("ref").asText())
                || !ObjectId.isId(m.path("pinned_commit").asText())
                || !ObjectId.isId(m.path("blob").asText())
                || !m.path("path").isTextual()
                || !m.path("repo").isTextual()) {
            return Optional.empty();
        }
        return Optional.of(new Ref(
                s.get().path("id").asText(),
                pointer,
                m.get("repo").asText(),
                m.get("path").asText(),
                ObjectId.fromString(m.get("pinned_commit").asText()),
                ObjectId.fromString(m.get("blob").asText()),
                m.hasNonNull("retired_at"),
                (ObjectNode) s.get()));
    }

    /** Every file reference in {@code root}'s {@code .slices/}, by pointer path order. */
    static List<Ref> scan(Path root) throws IOException {
        List<Ref> out = new ArrayList<>();
        Path dir = root.resolve(".slices");
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return out;
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(f -> f.getFileName().toString().endsWith(".slice"))
                    .filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS))
                    .sorted()
                    .toList();
        }
        for (Path f : files) {
            String text = Files.readString(f, StandardCharsets.UTF_8);
            if (text.contains("ref: git")) { // cheap pre-filter: most slices are not references
                parse(RepoPath.of(".slices/" + f.getFileName()), text).ifPresent(out::add);
            }
        }
        return out;
    }

    /** True when {@code now} (the pointer as it stands) is still this pin: not retired, re-pinned or moved. */
    boolean stillPinnedIn(Optional<Ref> now) {
        return now.isPresent()
                && !now.get().retired()
                && now.get().commit().equals(commit)
                && now.get().path().equals(path);
    }

    /** The memory files or slice ids it is placed on (its {@code meta.placed_on}). */
    List<String> placedOn() {
        JsonNode p = slice.path("meta").path("placed_on");
        List<String> out = new ArrayList<>();
        if (p.isTextual()) {
            out.add(p.asText());
        }
        p.forEach(x -> out.add(x.asText()));
        return out;
    }

    /** The section of the memory file it is placed on, or null. */
    String section() {
        return slice.path("meta").path("section").asText(null);
    }

    /** The work tree of the repository {@code repoKey} names; {@code realRoot}: the memory repository's. */
    static Path repoDir(Path realRoot, String repoKey) {
        return RefStore.MEMORY_REPO.equals(repoKey) ? realRoot : Path.of(repoKey);
    }

    /** How messages name the repository. */
    static String display(String repoKey) {
        return RefStore.MEMORY_REPO.equals(repoKey) ? "the memory repository" : repoKey;
    }
}
