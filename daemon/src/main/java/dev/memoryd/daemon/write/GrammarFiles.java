package dev.memoryd.daemon.write;

import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.RepoPath;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which grammar is in force: the root's own {@code templates/grammar.yaml} (with its
 * {@code templates/*.md}) once a maintainer changed the grammar, else the daemon's base grammar
 * (shipped, or {@code --templates DIR}). The root's files are written only by grammar changes,
 * which are ledger events, so the grammar in force is a function of the recorded files: the
 * writer reads it from the branch's recorded texts, and replay from the texts it has rebuilt up
 * to each event, so an event replays under the grammar it was recorded under. Thread-safe.
 */
public final class GrammarFiles {
    /** The root's grammar file. */
    public static final RepoPath GRAMMAR = RepoPath.of("templates/grammar.yaml");

    private final Grammar base;
    /** Grammars already loaded, by their texts: loading validates every template, so once per text. */
    private final Map<String, Grammar> loaded = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Grammar> e) {
            return size() > 8;
        }
    };

    public GrammarFiles(Grammar base) {
        this.base = base;
    }

    /** The grammar before any change a maintainer made to this root. */
    public Grammar base() {
        return base;
    }

    /** Whether {@code p} is one of the files that hold the root's grammar. */
    public static boolean isGrammarFile(RepoPath p) {
        return p.value().startsWith("templates/");
    }

    /** The path of a template of the root's grammar. */
    public static RepoPath template(String name) {
        return RepoPath.of("templates/" + name);
    }

    /**
     * The grammar in force given {@code files}, the recorded texts. IllegalStateException when the
     * recorded grammar does not load (only a hand edit committed past memoryd could do that).
     */
    public Grammar inForce(FileSource files) {
        Optional<String> yaml = files.read(GRAMMAR);
        if (yaml.isEmpty()) {
            return base;
        }
        Map<String, String> templates = new LinkedHashMap<>();
        StringBuilder key = new StringBuilder(yaml.get());
        base.templates().forEach((name, text) -> {
            String t = files.read(template(name)).orElse(text);
            templates.put(name, t);
            key.append('\u0000').append(t);
        });
        synchronized (loaded) {
            Grammar g = loaded.get(key.toString());
            if (g != null) {
                return g;
            }
        }
        Grammar g;
        try {
            g = Grammar.load(yaml.get(), templates);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the root's " + GRAMMAR.value() + " does not load: " + e.getMessage(), e);
        }
        synchronized (loaded) {
            loaded.put(key.toString(), g);
        }
        return g;
    }
}
