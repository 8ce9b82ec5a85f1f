package dev.memoryd.grammar;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The mutable state of one {@link Declarations} call: the texts the ops before have left, which
 * files they touched and their Change Log phrases. Each op goes to its applier; {@link #finish}
 * then adds each changed file's Change Log rollup and {@code last_updated} and lints the result.
 * One thread, one declaration.
 */
final class DeclarationRun {
    private static final Pattern LAST_UPDATED =
            Pattern.compile("(?m)^([ \\t]+last_updated:[ \\t]*)([^\\r\\n]*?)([ \\t]*)(\\r?)$");

    final Grammar g;
    final SectionHasher hasher;
    final String nowText;
    /** The declaration's day (yyyy-mm-dd, UTC), for Change Log lines. */
    final String date;
    /** Skip the lint of results (the ledger already accepted this declaration). */
    final boolean trusted;
    /** Op indexes whose create_entity files get {@code links: []} (replay of older lines). */
    final Set<Integer> unlinked;
    /**
     * Files whose CRLF line ends the lines memoryd writes may follow: every file for a new write;
     * for replay, those whose recorded lines say so, since lines recorded before memoryd kept CRLF
     * must replay to the mixed text they made.
     */
    private final Predicate<RepoPath> mayKeepCrlf;
    /** Files written with CRLF line ends because their text had them. */
    private final Set<RepoPath> crlfKept = new LinkedHashSet<>();

    private final FileSource files;
    /** Current text of every file read or created; absent = not loaded yet. */
    private final Map<RepoPath, Optional<String>> working = new LinkedHashMap<>();
    /** Text as read from the source (null for files created in this declaration). */
    private final Map<RepoPath, String> original = new LinkedHashMap<>();
    /** Files targeted by ops, in first-touched order. */
    private final Set<RepoPath> touched = new LinkedHashSet<>();
    /** Change Log phrases per file, in op order. */
    private final Map<RepoPath, List<String>> phrases = new LinkedHashMap<>();
    /** Index of the last op that touched each file (for post-checks). */
    private final Map<RepoPath, Integer> lastOp = new LinkedHashMap<>();
    /**
     * The parsed document of a file's current text, when an op left one: the next op, the Change
     * Log and the lint go on from it instead of parsing the whole text again.
     */
    private final Map<RepoPath, MemoryDocument> docs = new LinkedHashMap<>();

    DeclarationRun(
            Grammar g,
            FileSource files,
            Instant now,
            SectionHasher hasher,
            boolean trusted,
            Set<Integer> unlinked,
            Predicate<RepoPath> mayKeepCrlf) {
        this.g = g;
        this.mayKeepCrlf = mayKeepCrlf;
        this.files = files;
        this.hasher = hasher;
        this.trusted = trusted;
        this.unlinked = unlinked;
        Instant secs = now.truncatedTo(ChronoUnit.SECONDS);
        this.nowText = secs.toString();
        this.date = LocalDate.ofInstant(secs, ZoneOffset.UTC).toString();
    }

    /** The file's text as the ops so far left it (read from the source at most once). */
    Optional<String> read(RepoPath p) {
        return working.computeIfAbsent(p, k -> {
            Optional<String> t = Objects.requireNonNull(files.read(k), "FileSource returned null");
            t.ifPresent(s -> original.put(k, s));
            return t;
        });
    }

    void write(RepoPath p, String text, int opIndex) {
        working.put(p, Optional.of(text));
        docs.remove(p);
        touched.add(p);
        lastOp.put(p, opIndex);
    }

    /** As {@link #write(RepoPath, String, int)}, keeping the text's parsed document. */
    void write(RepoPath p, MemoryDocument doc, int opIndex) {
        write(p, doc.text(), opIndex);
        docs.put(p, doc);
    }

    /**
     * The parsed document of {@code text}, the file's current text: the one an op left, else a
     * parse (a replayed declaration's texts are each parsed once, so not through the cache).
     */
    MemoryDocument doc(RepoPath p, String text) {
        MemoryDocument d = docs.get(p);
        if (d != null && d.text() == text) { // identity: the text this document was made for
            return d;
        }
        d = trusted ? MemoryDocument.parseUncached(text) : MemoryDocument.parse(text);
        docs.put(p, d);
        return d;
    }

    /** Adds a phrase to the file's Change Log rollup. */
    void addPhrase(RepoPath p, String phrase) {
        phrases.computeIfAbsent(p, k -> new ArrayList<>()).add(phrase);
    }

    OpOutcome apply(Op op, int index) {
        if (op instanceof CreateEntity c) {
            return CreateEntityApplier.apply(this, c, index);
        }
        if (op instanceof ReplaceSection r) {
            return SectionOpApplier.apply(this, op, index, r.path(), r.section());
        }
        if (op instanceof AppendSection a) {
            return SectionOpApplier.apply(this, op, index, a.path(), a.section());
        }
        if (op instanceof AppendItem a) {
            return SectionOpApplier.apply(this, op, index, a.path(), a.section());
        }
        if (op instanceof CurateItems c) {
            return SectionOpApplier.apply(this, op, index, c.path(), c.section());
        }
        TombstoneSection t = (TombstoneSection) op;
        return SectionOpApplier.apply(this, op, index, t.path(), t.section());
    }

    /**
     * The changed files' final texts, in first-touched order. A refusal here names the last op
     * that touched the file in its details' {@code op_index}.
     */
    Map<RepoPath, String> finish() {
        Map<RepoPath, String> out = new LinkedHashMap<>();
        for (RepoPath p : touched) {
            String text = working.get(p).orElseThrow();
            String orig = original.get(p);
            if (text.equals(orig)) {
                continue;
            }
            FileType type = g.fileTypeOf(p).orElseThrow();
            MemoryDocument doc;
            try {
                doc = ChangeLog.rollup(doc(p, text), type, p, date, phrases.getOrDefault(p, List.of()));
                doc = setLastUpdated(doc);
                if (mayKeepCrlf.test(p) && crlf(orig)) {
                    doc = MemoryDocument.parse(withCrlf(doc.text()));
                    crlfKept.add(p);
                }
            } catch (OpRejected r) {
                throw withOp(r, p);
            }
            if (!trusted) {
                ResultLint.check(g, p, orig, doc, lastOp.get(p));
                MemoryDocument.remember(doc); // the next write to the file starts from it
            }
            out.put(p, doc.text());
        }
        return out;
    }

    /** The files {@link #finish} wrote with CRLF line ends because their text had them. */
    Set<RepoPath> crlfKept() {
        return crlfKept;
    }

    /**
     * Whether a file's lines end with CRLF, as a human's editor on Windows saves them: told by its
     * first line, so that the lines memoryd adds end as the human's do and the file never mixes
     * the two (an editor shows a mixed file's every other line with a stray ^M).
     */
    static boolean crlf(String text) {
        if (text == null) {
            return false;
        }
        int nl = text.indexOf('\n');
        return nl > 0 && text.charAt(nl - 1) == '\r';
    }

    /** {@code text} with every line end that is a lone LF made CRLF. */
    static String withCrlf(String text) {
        StringBuilder b = new StringBuilder(text.length() + text.length() / 32);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n' && (i == 0 || text.charAt(i - 1) != '\r')) {
                b.append('\r');
            }
            b.append(c);
        }
        return b.toString();
    }

    private OpRejected withOp(OpRejected r, RepoPath p) {
        Map<String, Object> d = new LinkedHashMap<>(r.details);
        d.put("op_index", lastOp.get(p));
        return new OpRejected(r.reason, r.getMessage(), d);
    }

    private MemoryDocument setLastUpdated(MemoryDocument doc) {
        String text = doc.text();
        int fmEnd = MemoryDocument.frontmatterEnd(text);
        if (fmEnd < 0) {
            return doc;
        }
        Matcher m = LAST_UPDATED.matcher(text).region(0, fmEnd);
        if (!m.find()) {
            return doc;
        }
        String old = m.group(2);
        String value =
                old.startsWith("\"") ? "\"" + nowText + "\"" : old.startsWith("'") ? "'" + nowText + "'" : nowText;
        return doc.splice(m.start(2), m.end(2), value);
    }
}
