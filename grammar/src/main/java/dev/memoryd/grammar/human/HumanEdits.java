package dev.memoryd.grammar.human;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.LintProblem;
import dev.memoryd.grammar.Linter;
import dev.memoryd.grammar.MemoryDocument;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What a human's edit of a memory file amounts to, decided by content alone (no clock, no
 * I/O). A file is cut into regions: the head (frontmatter, title and anything before the first
 * H2) and one region per H2 section, from its heading to the next H2. When the list of regions
 * is unchanged, the edit is a list of region replacements, each one event that replay can redo
 * byte for byte. When the list changed but the file still follows the grammar, it is one
 * whole-file replacement. When the edit breaks the grammar (a section or anchor removed or
 * renamed, the Change Log deleted, an id edited, the file deleted), it is drift: nothing is
 * applied and a maintainer decides.
 *
 * <p>Stateless and thread-safe.
 */
public final class HumanEdits {
    /** The key of the region before the first H2 section. */
    public static final String HEAD = "_head";

    /** Lint rules whose new appearance means the human's edit broke the file's structure. */
    public static final Set<String> STRUCTURAL_RULES = Set.of(
            "file-type-unknown",
            "frontmatter-missing",
            "frontmatter-invalid",
            "slice-required-field",
            "slice-invalid",
            "identity-field",
            "h1-missing",
            "section-unknown",
            "section-missing",
            "section-order",
            "section-duplicate",
            "anchor-missing",
            "anchor-mismatch",
            "change-log-missing");

    private HumanEdits() {}

    /** A region of a file: its key (see {@link #regions}), its exact text and where it starts. */
    public record Region(String key, String text, int start) {}

    /** What an edit amounts to. */
    public sealed interface Diff {}

    /** The file is byte for byte what it was. */
    public record Unchanged() implements Diff {}

    /** Region replacements, in file order; the list of regions is unchanged. */
    public record Regions(List<RegionChange> changes) implements Diff {
        public Regions {
            changes = List.copyOf(changes);
        }
    }

    /**
     * One whole-file replacement: a new file, or an edit that added, removed or moved regions
     * while keeping the grammar. {@code changedKeys} are the region keys whose text differs.
     */
    public record WholeFile(String text, Set<String> changedKeys) implements Diff {
        public WholeFile {
            Objects.requireNonNull(text);
            changedKeys = Set.copyOf(changedKeys);
        }
    }

    /** The edit breaks the grammar; {@code kind} is a stable id, {@code problems} the new lint problems. */
    public record Breaks(String kind, String reason, List<LintProblem> problems) implements Diff {
        public Breaks {
            problems = List.copyOf(problems);
        }
    }

    /**
     * One region's change. {@code index} is its position among the regions; hashes are of the
     * section's canonical body (the head's: of its canonical text), as {@code read} reports them.
     */
    public record RegionChange(
            String key, int index, String before, String after, String beforeHash, String afterHash) {}

    /**
     * Cuts a text into regions. Keys: {@link #HEAD}, then each H2's anchor slug, or {@code #}
     * plus its heading when it has no anchor; a repeated key gets {@code ~n} appended.
     */
    public static List<Region> regions(String text) {
        MemoryDocument doc = MemoryDocument.parse(text);
        List<MemoryDocument.Section> h2 = doc.h2Sections();
        List<Region> out = new ArrayList<>();
        int headEnd = h2.isEmpty() ? text.length() : h2.get(0).start();
        out.add(new Region(HEAD, text.substring(0, headEnd), 0));
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < h2.size(); i++) {
            MemoryDocument.Section s = h2.get(i);
            int end = i + 1 < h2.size() ? h2.get(i + 1).start() : text.length();
            String key = s.anchor() != null ? s.anchor() : "#" + s.heading();
            int n = seen.merge(key, 1, Integer::sum);
            out.add(new Region(n == 1 ? key : key + "~" + n, text.substring(s.start(), end), s.start()));
        }
        return out;
    }

    /**
     * Decides what a human's edit of {@code path} from {@code before} to {@code after} amounts
     * to. Either may be null (the file did not exist / was deleted).
     */
    public static Diff diff(Grammar grammar, RepoPath path, String before, String after, SectionHasher hasher) {
        if (Objects.equals(before, after)) {
            return new Unchanged();
        }
        if (after == null) {
            return new Breaks("deleted", "the file was deleted; memory files are never deleted", List.of());
        }
        Linter linter = new Linter();
        List<LintProblem> afterProblems = linter.lint(grammar, path, after);
        List<LintProblem> beforeProblems = before == null ? List.of() : linter.lint(grammar, path, before);
        List<LintProblem> fresh = newStructuralProblems(beforeProblems, afterProblems);
        if (before != null) {
            Optional<String> idChange = idChange(before, after);
            if (idChange.isPresent()) {
                return new Breaks("id_edited", idChange.get(), fresh);
            }
        }
        if (!fresh.isEmpty()) {
            LintProblem first = fresh.get(0);
            return new Breaks(
                    "grammar_broken",
                    "line " + first.line() + ": " + first.message() + " (" + first.rule() + ")"
                            + (fresh.size() > 1 ? " and " + (fresh.size() - 1) + " more" : ""),
                    fresh);
        }
        List<Region> a = regions(after);
        if (before == null) {
            Set<String> keys = new HashSet<>();
            a.forEach(r -> keys.add(r.key()));
            return new WholeFile(after, keys);
        }
        List<Region> b = regions(before);
        if (!keys(a).equals(keys(b))) {
            Set<String> changed = new HashSet<>();
            Map<String, String> old = new HashMap<>();
            b.forEach(r -> old.put(r.key(), r.text()));
            a.forEach(r -> {
                if (!r.text().equals(old.get(r.key()))) {
                    changed.add(r.key());
                }
            });
            old.keySet().stream()
                    .filter(k -> a.stream().noneMatch(r -> r.key().equals(k)))
                    .forEach(changed::add);
            return new WholeFile(after, changed);
        }
        List<RegionChange> changes = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).text().equals(b.get(i).text())) {
                changes.add(new RegionChange(
                        a.get(i).key(),
                        i,
                        b.get(i).text(),
                        a.get(i).text(),
                        hasher.hash(canonical(b.get(i))),
                        hasher.hash(canonical(a.get(i)))));
            }
        }
        return new Regions(changes);
    }

    /** The text a region's hash is computed over: a section's canonical body, the head's canonical text. */
    public static String canonical(Region r) {
        if (r.key().equals(HEAD)) {
            return MemoryDocument.canonicalize(r.text());
        }
        MemoryDocument doc = MemoryDocument.parse(r.text());
        List<MemoryDocument.Section> h2 = doc.h2Sections();
        return h2.isEmpty() ? MemoryDocument.canonicalize(r.text()) : doc.canonicalBody(h2.get(0));
    }

    /**
     * Redoes one region replacement: the region at {@code index} must carry {@code key}. Returns
     * empty when it does not (the file no longer has that shape).
     */
    public static Optional<String> applyRegion(String text, String key, int index, String newRegionText) {
        List<Region> rs = regions(text);
        if (index < 0 || index >= rs.size() || !rs.get(index).key().equals(key)) {
            return Optional.empty();
        }
        Region r = rs.get(index);
        return Optional.of(text.substring(0, r.start())
                + newRegionText
                + text.substring(r.start() + r.text().length()));
    }

    /** The region of a text with this key, if any. */
    public static Optional<Region> region(String text, String key) {
        return regions(text).stream().filter(r -> r.key().equals(key)).findFirst();
    }

    /**
     * Renames a section back to a canonical one: the H2 whose heading or anchor is {@code from}
     * gets the heading and anchor comment of the file type's section {@code to} (a canonical name
     * or anchor). Empty with a reason when there is no such H2 or no such canonical section.
     */
    public static Reanchored reanchor(Grammar grammar, RepoPath path, String text, String from, String to) {
        Optional<dev.memoryd.grammar.FileType> type = grammar.fileTypeOf(path);
        if (type.isEmpty()) {
            return new Reanchored(null, "no file type of the grammar matches " + path.value());
        }
        Optional<dev.memoryd.grammar.SectionDef> def = grammar.section(type.get(), to);
        if (def.isEmpty()) {
            return new Reanchored(
                    null, "'" + to + "' is not a section of a " + type.get().name() + " file");
        }
        MemoryDocument doc = MemoryDocument.parse(text);
        Optional<MemoryDocument.Section> hit = doc.h2Sections().stream()
                .filter(s -> s.heading().equals(from) || from.equals(s.anchor()))
                .findFirst();
        if (hit.isEmpty()) {
            return new Reanchored(null, "no section '" + from + "' in " + path.value());
        }
        MemoryDocument.Section s = hit.get();
        String nl = text.contains("\r\n") ? "\r\n" : "\n";
        String head =
                "## " + def.get().name() + nl + "<!-- @anchor: " + def.get().anchor() + " v1 -->" + nl;
        return new Reanchored(text.substring(0, s.start()) + head + text.substring(s.bodyStart()), null);
    }

    /**
     * The one bounded re-anchor of file-grammar §10, for replay onto a snapshot whose section
     * {@code anchor} cannot be found: among the H2 sections lying between the canonical sections
     * that precede and follow it (in the grammar's order) and that are not canonical themselves,
     * exactly one must have a heading within edit distance {@link #reanchorBound} of the
     * canonical name (both lowercased, punctuation dropped, spaces collapsed). That section gets
     * the canonical heading and anchor; its body is kept.
     */
    public static Reanchored boundedReanchor(Grammar grammar, RepoPath path, String text, String anchor) {
        Optional<dev.memoryd.grammar.FileType> type = grammar.fileTypeOf(path);
        if (type.isEmpty()) {
            return new Reanchored(null, "no file type of the grammar matches " + path.value());
        }
        List<dev.memoryd.grammar.SectionDef> defs = type.get().sections();
        int at = -1;
        for (int i = 0; i < defs.size(); i++) {
            if (defs.get(i).anchor().equals(anchor)) {
                at = i;
            }
        }
        if (at < 0) {
            return new Reanchored(
                    null, "'" + anchor + "' is not a section of a " + type.get().name() + " file");
        }
        MemoryDocument doc = MemoryDocument.parse(text);
        List<MemoryDocument.Section> h2 = doc.h2Sections();
        Set<String> canonical = new HashSet<>();
        defs.forEach(d -> {
            canonical.add(d.anchor());
            canonical.add(d.name());
        });
        int from = 0;
        int to = text.length();
        for (MemoryDocument.Section s : h2) {
            int idx = indexOf(defs, s);
            if (idx >= 0 && idx < at) {
                from = Math.max(from, s.end() > s.start() ? s.start() + 1 : s.start());
            } else if (idx > at) {
                to = Math.min(to, s.start());
            }
        }
        String want = normalize(defs.get(at).name());
        int bound = reanchorBound(defs.get(at).name());
        List<MemoryDocument.Section> hits = new ArrayList<>();
        for (MemoryDocument.Section s : h2) {
            boolean isCanonical =
                    s.anchor() != null && canonical.contains(s.anchor()) || canonical.contains(s.heading());
            if (!isCanonical
                    && s.start() >= from
                    && s.start() < to
                    && distance(normalize(s.heading()), want) <= bound) {
                hits.add(s);
            }
        }
        if (hits.size() != 1) {
            return new Reanchored(
                    null,
                    hits.isEmpty()
                            ? "no section near '" + defs.get(at).name() + "' within " + bound + " edits in its region"
                            : hits.size() + " sections are within " + bound + " edits of '"
                                    + defs.get(at).name() + "'; re-anchoring must be unambiguous");
        }
        return reanchor(grammar, path, text, hits.get(0).heading(), anchor);
    }

    /** How many single-character edits a re-anchor tolerates: a quarter of the name's length, at least 1. */
    public static int reanchorBound(String canonicalName) {
        return Math.max(1, normalize(canonicalName).length() / 4);
    }

    private static int indexOf(List<dev.memoryd.grammar.SectionDef> defs, MemoryDocument.Section s) {
        for (int i = 0; i < defs.size(); i++) {
            if (defs.get(i).anchor().equals(s.anchor())
                    || s.anchor() == null && defs.get(i).name().equals(s.heading())) {
                return i;
            }
        }
        return -1;
    }

    static String normalize(String s) {
        return s.toLowerCase(java.util.Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}]+", " ")
                .strip();
    }

    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    /** The result of {@link #reanchor}: the new text, or why there is none. */
    public record Reanchored(String text, String error) {}

    private static List<String> keys(List<Region> rs) {
        return rs.stream().map(Region::key).toList();
    }

    private static List<LintProblem> newStructuralProblems(List<LintProblem> before, List<LintProblem> after) {
        Map<String, Integer> had = new HashMap<>();
        for (LintProblem p : before) {
            if (STRUCTURAL_RULES.contains(p.rule())) {
                had.merge(p.rule() + "\u0000" + p.message(), 1, Integer::sum);
            }
        }
        List<LintProblem> out = new ArrayList<>();
        for (LintProblem p : after) {
            if (!STRUCTURAL_RULES.contains(p.rule())) {
                continue;
            }
            String k = p.rule() + "\u0000" + p.message();
            int n = had.getOrDefault(k, 0);
            if (n > 0) {
                had.put(k, n - 1);
            } else {
                out.add(p);
            }
        }
        return out;
    }

    /** The ids a human may not edit: {@code slice.id} and {@code slice.meta} user, entity type and id. */
    private static Optional<String> idChange(String before, String after) {
        JsonNode b = MemoryDocument.parse(before).frontmatter();
        JsonNode a = MemoryDocument.parse(after).frontmatter();
        if (b == null || a == null) {
            return Optional.empty(); // a broken frontmatter is reported by lint
        }
        String[][] fields = {{"id"}, {"meta", "user_id"}, {"meta", "entity_type"}, {"meta", "entity_id"}};
        for (String[] f : fields) {
            JsonNode x = b.path("slice");
            JsonNode y = a.path("slice");
            for (String k : f) {
                x = x.path(k);
                y = y.path(k);
            }
            if (!x.isMissingNode() && !x.asText().equals(y.asText(null))) {
                return Optional.of("slice." + String.join(".", f) + " was edited from '" + x.asText() + "' to '"
                        + (y.isMissingNode() ? "(removed)" : y.asText()) + "'; ids are never edited");
            }
        }
        return Optional.empty();
    }
}
