package dev.memoryd.daemon.refs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.MemoryDocument;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.IdGenerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Adding a reference: checks the placement, the repository and the file (committed at HEAD, a
 * regular file), then records the new pointer pinned at HEAD ({@code ref_add}). Every refusal is a
 * {@link Failure} that records nothing.
 */
final class RefAdder {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final WritePipeline writer;
    private final IdGenerator ids;
    private final Path root;
    private final Path realRoot;

    RefAdder(WritePipeline writer, IdGenerator ids, Path root, Path realRoot) {
        this.writer = writer;
        this.ids = ids;
        this.root = root;
        this.realRoot = realRoot;
    }

    Outcome<AddedRef> add(NewRef req) throws IOException {
        Optional<Failure> bad = checkPlacement(req.placedOn(), req.section());
        if (bad.isPresent()) {
            return Outcome.fail(bad.get());
        }
        Path repoDir;
        String repoKey;
        String repo = req.repo();
        if (repo == null || repo.isBlank()) {
            repoDir = realRoot;
            repoKey = RefStore.MEMORY_REPO;
        } else {
            Path r = Path.of(repo);
            if (!r.isAbsolute()) {
                return Outcome.fail(
                        ErrorReason.INVALID_REQUEST,
                        "repo must be an absolute path to a local Git repository," + " not '" + repo + "'");
            }
            if (!Files.isDirectory(r)) {
                return Outcome.fail(ErrorReason.NOT_FOUND, "no Git repository at " + repo + " (no such directory)");
            }
            repoDir = r.toRealPath();
            repoKey = repoDir.equals(realRoot) ? RefStore.MEMORY_REPO : repoDir.toString();
        }
        try (GitHistory g = GitHistory.open(repoDir)) {
            if (g == null) {
                return Outcome.fail(ErrorReason.NOT_FOUND, "no Git repository at " + repoDir + " (no .git there)");
            }
            if (g.head() == null) {
                return Outcome.fail(ErrorReason.NOT_FOUND, "the Git repository at " + repoDir + " has no commits yet");
            }
            Outcome<String> rel = relative(repoDir, req.path());
            if (rel instanceof Outcome.Failed<String> f) {
                return Outcome.fail(f.failure());
            }
            String file = ((Outcome.Ok<String>) rel).value();
            GitHistory.Entry e = g.entryAtHead(file);
            String at = " at HEAD (" + g.head().name().substring(0, 12) + ") of " + Ref.display(repoKey);
            if (e == null) {
                boolean onDisk = Files.exists(repoDir.resolve(file), LinkOption.NOFOLLOW_LINKS);
                return Outcome.fail(new Failure(
                        ErrorReason.NOT_FOUND,
                        onDisk
                                ? file + " is not committed" + at
                                        + "; a reference pins a committed file: commit it first"
                                : "no file " + file + at,
                        Map.of("path", file)));
            }
            if (!e.isFile()) {
                return Outcome.fail(new Failure(
                        ErrorReason.INVALID_REQUEST,
                        file + " is not a file" + at + " (a directory or submodule); reference a file",
                        Map.of("path", file)));
            }
            GitHistory.Digest d = g.digest(e.id());
            String id = ids.next().value();
            ObjectNode slice = F.objectNode();
            slice.put("v", "1");
            slice.put("id", id);
            slice.put("kind", "pointer");
            PointerText.describe(slice, repoKey, file, g.head(), e.id(), d);
            ObjectNode meta = slice.putObject("meta");
            meta.put("ref", "git");
            meta.put("repo", repoKey);
            meta.put("path", file);
            meta.put("pinned_commit", g.head().name());
            meta.put("blob", e.id().name());
            ArrayNode po = meta.putArray("placed_on");
            req.placedOn().forEach(po::add);
            if (req.section() != null) {
                meta.put("section", req.section());
            }
            WriteOutcome out = RefMutations.await(writer.submit(WriteRequest.of(
                    new RefMutations.Add(slice),
                    "reference " + file + " in " + Ref.display(repoKey),
                    req.actor() == null ? "agent" : req.actor())));
            if (out instanceof WriteOutcome.Rejected rej) {
                return Outcome.fail(rej.failure());
            }
            WriteOutcome.Committed c = (WriteOutcome.Committed) out;
            return Outcome.ok(new AddedRef(
                    id,
                    Ref.pathOf(id).value(),
                    slice.path("payload").path("uri").asText(),
                    repoKey,
                    file,
                    g.head().name(),
                    e.id().name(),
                    d.sha256(),
                    c.commit(),
                    c.events().get(0).eventId()));
        }
    }

    /** The file's path relative to the repository, or why it cannot be one. */
    private static Outcome<String> relative(Path repoDir, String path) throws IOException {
        if (path == null || path.isBlank()) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "missing parameter 'path'");
        }
        Path p = Path.of(path);
        Path n = (p.isAbsolute() ? p : repoDir.resolve(p)).normalize();
        if (!n.startsWith(repoDir) && n.getParent() != null && Files.isDirectory(n.getParent())) {
            n = n.getParent().toRealPath().resolve(n.getFileName()); // an absolute path through a symlink
        }
        if (!n.startsWith(repoDir) || n.equals(repoDir)) {
            return Outcome.fail(new Failure(
                    ErrorReason.INVALID_REQUEST,
                    "path '" + path + "' is outside the repository " + repoDir
                            + "; give a file inside it, relative to its top or absolute",
                    Map.of("path", path)));
        }
        String rel = repoDir.relativize(n).toString().replace('\\', '/');
        try {
            return Outcome.ok(RepoPath.of(rel).value());
        } catch (IllegalArgumentException e) {
            return Outcome.fail(new Failure(
                    ErrorReason.INVALID_REQUEST, "bad path '" + path + "': " + e.getMessage(), Map.of("path", path)));
        }
    }

    private Optional<Failure> checkPlacement(List<String> placedOn, String section) throws IOException {
        for (String s : placedOn) {
            if (s.isBlank()) {
                return Optional.of(
                        Failure.of(ErrorReason.INVALID_REQUEST, "placed_on entries must be non-empty strings"));
            }
            boolean slice = Ref.ID.matcher(s).matches()
                    && Files.isRegularFile(root.resolve(Ref.pathOf(s).value()), LinkOption.NOFOLLOW_LINKS);
            boolean file = false;
            try {
                file = Files.isRegularFile(root.resolve(RepoPath.of(s).value()), LinkOption.NOFOLLOW_LINKS);
            } catch (IllegalArgumentException e) {
                // not a repository path; it may still be a slice id
            }
            if (!slice && !file) {
                return Optional.of(new Failure(
                        ErrorReason.NOT_FOUND,
                        "placed_on '" + s + "' is neither a file of the memory" + " repository nor a slice id",
                        Map.of("placed_on", s)));
            }
        }
        if (section == null) {
            return Optional.empty();
        }
        String only = placedOn.get(0);
        if (placedOn.size() != 1
                || !RootLayout.isMemoryFile(only)
                || !Files.isRegularFile(root.resolve(only), LinkOption.NOFOLLOW_LINKS)) {
            return Optional.of(Failure.of(
                    ErrorReason.INVALID_REQUEST,
                    "section needs placed_on to be exactly one memory" + " file (users/.../*.md)"));
        }
        MemoryDocument doc = MemoryDocument.parse(Files.readString(root.resolve(only), StandardCharsets.UTF_8));
        List<String> names = new ArrayList<>();
        for (MemoryDocument.Section s : doc.sections()) {
            if (s.level() == 2) {
                if (section.equals(s.heading()) || section.equals(s.anchor())) {
                    return Optional.empty();
                }
                names.add(s.heading());
            }
        }
        return Optional.of(new Failure(
                ErrorReason.UNKNOWN_SECTION, "no section '" + section + "' in " + only, Map.of("sections", names)));
    }
}
