package dev.memoryd.daemon;

import dev.memoryd.grammar.Grammar;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads the grammar definition and templates: from a directory when one is configured (so
 * maintainers can tune caps without a rebuild), else from the copy shipped in the jar.
 */
final class Templates {
    static final List<String> FILES = List.of("grammar.yaml", "user.md", "part.md", "relationship.md", "notes.md");

    private Templates() {}

    static Grammar load(Path dir) {
        Map<String, String> texts = new LinkedHashMap<>();
        for (String f : FILES) {
            texts.put(f, dir != null ? readFile(dir.resolve(f)) : readResource("memoryd/templates/" + f));
        }
        String yaml = texts.remove("grammar.yaml");
        return Grammar.load(yaml, texts);
    }

    private static String readFile(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read template " + p, e);
        }
    }

    private static String readResource(String name) {
        try (InputStream in = Templates.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("template " + name + " missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
