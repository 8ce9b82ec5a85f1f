package dev.memoryd.grammar;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Shared fixtures: the grammar and example tree from the test classpath, a test hasher. */
final class TestSupport {

    static final Instant NOW = Instant.parse("2026-11-21T10:00:00Z");
    static final List<String> TEMPLATE_NAMES = List.of("user.md", "part.md", "relationship.md", "notes.md");
    private static Grammar grammar;

    private TestSupport() {}

    static String resource(String name) {
        try (InputStream in = TestSupport.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path resourceDir(String name) {
        try {
            return Path.of(TestSupport.class.getClassLoader().getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static synchronized Grammar grammar() {
        if (grammar == null) {
            Map<String, String> templates = new LinkedHashMap<>();
            for (String n : TEMPLATE_NAMES) {
                templates.put(n, resource("templates/" + n));
            }
            grammar = Grammar.load(resource("templates/grammar.yaml"), templates);
        }
        return grammar;
    }

    /** Every file of the example tree, keyed by repository path (users/...). */
    static Map<RepoPath, String> exampleTree() {
        Path root = resourceDir("users").getParent();
        Map<RepoPath, String> out = new TreeMap<>(java.util.Comparator.comparing(RepoPath::value));
        try (Stream<Path> s = Files.walk(root.resolve("users"))) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                String rel = root.relativize(p).toString().replace('\\', '/');
                out.put(RepoPath.of(rel), Files.readString(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    static FileSource source(Map<RepoPath, String> files) {
        return p -> Optional.ofNullable(files.get(p));
    }

    static final SectionHasher HASHER = TestSupport::sha256;

    static String sha256(String s) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static RepoPath p(String s) {
        return RepoPath.of(s);
    }

    static final RepoPath CRITIC = RepoPath.of("users/sam/parts/inner-critic/profile.md");
    static final RepoPath YOUNG = RepoPath.of("users/sam/parts/young-one/profile.md");
    static final RepoPath OVERVIEW = RepoPath.of("users/sam/overview.md");
    static final RepoPath REL = RepoPath.of("users/sam/relationships/critic-protects-young-one/profile.md");
    static final RepoPath NOTES = RepoPath.of("users/sam/notes.md");

    static ApplyResult apply(Map<RepoPath, String> files, Op... ops) {
        return Declarations.apply(grammar(), source(files), List.of(ops), NOW, HASHER);
    }

    static ApplyResult.Applied applied(ApplyResult r) {
        if (r instanceof ApplyResult.Rejected rej) {
            throw new AssertionError("rejected: " + rej);
        }
        return (ApplyResult.Applied) r;
    }

    static ApplyResult.Rejected rejected(ApplyResult r) {
        if (r instanceof ApplyResult.Applied a) {
            throw new AssertionError("applied: " + a.newContents());
        }
        return (ApplyResult.Rejected) r;
    }
}
