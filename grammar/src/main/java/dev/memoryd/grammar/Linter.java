package dev.memoryd.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.grammar.slices.SliceProblem;
import dev.memoryd.grammar.slices.SliceValidator;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks a memory file against the grammar. Pure and stateless; thread-safe.
 *
 * <p>Rule ids (stable; clients may match on them):
 * <ul>
 * <li>{@code file-type-unknown}: the path matches no file type (the only problem reported)</li>
 * <li>{@code frontmatter-missing}: the file does not open with a {@code ---} frontmatter block</li>
 * <li>{@code frontmatter-invalid}: unclosed block, broken YAML, or no {@code slice:} mapping</li>
 * <li>{@code slice-required-field}: {@code slice.v} is not "1", or {@code id}, {@code title},
 *     {@code summary} is missing/empty, or {@code body.type} is not {@code markdown} (the
 *     required-field checks of {@link SliceValidator})</li>
 * <li>{@code slice-invalid}: any other {@link SliceValidator} problem of the {@code slice:}
 *     mapping (bad enum, link, hash, id format, unknown field; the message names the field path)</li>
 * <li>{@code identity-field}: {@code slice.meta.user_id}, {@code entity_type}, {@code entity_id}
 *     missing or inconsistent with the path, or {@code last_updated} missing / not ISO-8601 UTC</li>
 * <li>{@code h1-missing}: no H1 title before the first section (at the first line after the frontmatter)</li>
 * <li>{@code section-unknown}: an H2 that is not a canonical section of the file type</li>
 * <li>{@code section-missing}: a required canonical section is absent (reported at the next
 *     present canonical section, else the last line)</li>
 * <li>{@code section-order}: a canonical section appears after one that must follow it</li>
 * <li>{@code section-duplicate}: a canonical section appears twice (at the second)</li>
 * <li>{@code anchor-missing}: a canonical section has no anchor comment on the next line</li>
 * <li>{@code anchor-mismatch}: the anchor slug differs from the section's (at the anchor line)</li>
 * <li>{@code change-log-missing}: the file type's Change Log is absent</li>
 * <li>{@code cap-words}: a narrative section has more words than {@code max_words}</li>
 * <li>{@code cap-items}: a list section has more bullets than {@code max_items}</li>
 * <li>{@code evidence-token}: an Evidence bullet lacks a quote or a valid
 *     {@code ev:YYYYMMDDThhmmssZ-<ULID>} token (at the bullet's line)</li>
 * </ul>
 * Problems are returned in line order (stable for equal lines).
 */
public final class Linter {

    /** Lints one file. */
    public List<LintProblem> lint(Grammar grammar, RepoPath path, String text) {
        return lint(grammar, path, MemoryDocument.parse(text));
    }

    /** Lints one file, already parsed. */
    public List<LintProblem> lint(Grammar grammar, RepoPath path, MemoryDocument doc) {
        List<LintProblem> out = new ArrayList<>();
        String p = path.value();
        Optional<PathMatch> match = grammar.match(path);
        if (match.isEmpty()) {
            out.add(new LintProblem(p, 1, "file-type-unknown", "no file type of the grammar matches path '" + p + "'"));
            return out;
        }
        PathMatch pm = match.get();
        FileType type = pm.fileType();

        lintFrontmatter(doc, pm, p, out);

        int firstH2Line = doc.h2Sections().isEmpty()
                ? Integer.MAX_VALUE
                : doc.h2Sections().get(0).line();
        if (doc.title().isEmpty() || doc.titleLine() > firstH2Line) {
            int line = doc.frontmatterSpan().map(s -> doc.lineOf(s.end())).orElse(1);
            out.add(new LintProblem(
                    p,
                    Math.min(line, doc.lineCount() + 1),
                    "h1-missing",
                    "the file needs an H1 title before its sections"));
        }

        lintSections(doc, type, p, out);
        out.sort(java.util.Comparator.comparingInt(LintProblem::line));
        return out;
    }

    /** Frontmatter findings by frontmatter text, path and the identity the path gives. */
    private record FrontmatterKey(String frontmatter, String path, String userId, String entityType, String entityId) {}

    /**
     * Recent frontmatter findings, bounded, thread-safe under its lock. A write changes a file's
     * frontmatter only in {@code last_updated}, to the second, so writes to one file within a
     * second lint the same frontmatter; parsing its YAML and validating the slice were about an
     * eighth of the writer's CPU. Frontmatter findings depend only on the frontmatter's text (it
     * starts the file, so its lines are the file's) and on the path.
     */
    private static final Map<FrontmatterKey, List<LintProblem>> FRONTMATTER =
            new java.util.LinkedHashMap<>(128, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<FrontmatterKey, List<LintProblem>> e) {
                    return size() > 64;
                }
            };

    private static void lintFrontmatter(MemoryDocument doc, PathMatch pm, String p, List<LintProblem> out) {
        Optional<MemoryDocument.Span> span = doc.frontmatterSpan();
        if (span.isEmpty() || span.get().start() != 0) {
            lintFrontmatterUncached(doc, pm, p, out);
            return;
        }
        FrontmatterKey key = new FrontmatterKey(
                doc.text().substring(0, span.get().end()), p, pm.userId(), pm.entityType(), pm.entityId());
        List<LintProblem> hit;
        synchronized (FRONTMATTER) {
            hit = FRONTMATTER.get(key);
        }
        if (hit == null) {
            List<LintProblem> found = new ArrayList<>();
            lintFrontmatterUncached(doc, pm, p, found);
            hit = List.copyOf(found);
            synchronized (FRONTMATTER) {
                FRONTMATTER.put(key, hit);
            }
        }
        out.addAll(hit);
    }

    private static void lintFrontmatterUncached(MemoryDocument doc, PathMatch pm, String p, List<LintProblem> out) {
        if (doc.frontmatterSpan().isEmpty() && doc.frontmatterError() == null) {
            out.add(new LintProblem(
                    p,
                    1,
                    "frontmatter-missing",
                    doc.text().startsWith("\uFEFF")
                            ? "the file opens with a byte order mark (U+FEFF, bytes EF BB BF) before its '---':"
                                    + " memory files are UTF-8 without one; save it again without the mark"
                            : "the file must open with a '---' YAML frontmatter block"));
            return;
        }
        JsonNode fm = doc.frontmatter();
        if (fm == null) {
            out.add(new LintProblem(
                    p,
                    doc.frontmatterErrorLine(),
                    "frontmatter-invalid",
                    "frontmatter is not valid YAML: " + doc.frontmatterError()));
            return;
        }
        JsonNode slice = fm.get("slice");
        if (slice == null || !slice.isObject()) {
            out.add(new LintProblem(p, 2, "frontmatter-invalid", "frontmatter needs a 'slice:' mapping"));
            return;
        }
        for (SliceProblem sp : SliceValidator.validate(slice)) {
            String field = sp.fieldPath();
            if (SliceValidator.REQUIRED_FIELDS.contains(field) && !sp.rule().equals("format")) {
                String key = field.equals("slice.body.type") ? "body" : field.substring("slice.".length());
                out.add(new LintProblem(p, keyLine(doc, key, 2), "slice-required-field", sp.message()));
            } else {
                out.add(new LintProblem(p, keyLine(doc, lastKey(field), 2), "slice-invalid", sp.message()));
            }
        }
        JsonNode bt = slice.path("body").get("type");
        if (bt != null
                && bt.isTextual()
                && SliceValidator.BODY_TYPES.contains(bt.asText())
                && !bt.asText().equals("markdown")) {
            out.add(new LintProblem(
                    p,
                    keyLine(doc, "type", 2),
                    "slice-required-field",
                    "memory files need slice.body.type markdown, not " + bt.asText()));
        }
        JsonNode meta = slice.get("meta");
        int metaLine = keyLine(doc, "meta", 2);
        Map<String, String> expected = new java.util.LinkedHashMap<>();
        expected.put("user_id", pm.userId());
        expected.put("entity_type", pm.entityType());
        expected.put("entity_id", pm.entityId());
        for (Map.Entry<String, String> e : expected.entrySet()) {
            JsonNode n = meta == null ? null : meta.get(e.getKey());
            if (n == null || !n.isValueNode() || n.isNull()) {
                out.add(new LintProblem(p, metaLine, "identity-field", "slice.meta." + e.getKey() + " is required"));
            } else if (!n.asText().equals(e.getValue())) {
                out.add(new LintProblem(
                        p,
                        keyLine(doc, e.getKey(), metaLine),
                        "identity-field",
                        "slice.meta." + e.getKey() + " is '" + n.asText() + "' but the path says '" + e.getValue()
                                + "'"));
            }
        }
        JsonNode lu = meta == null ? null : meta.get("last_updated");
        if (lu == null || !lu.isValueNode() || lu.isNull()) {
            out.add(new LintProblem(p, metaLine, "identity-field", "slice.meta.last_updated is required"));
        } else {
            try {
                if (!lu.asText().endsWith("Z")) {
                    throw new DateTimeParseException("no Z", lu.asText(), 0);
                }
                Instant.parse(lu.asText());
            } catch (DateTimeParseException e) {
                out.add(new LintProblem(
                        p,
                        keyLine(doc, "last_updated", metaLine),
                        "identity-field",
                        "slice.meta.last_updated '" + lu.asText() + "' is not an ISO-8601 UTC timestamp"));
            }
        }
    }

    /** The last key of a field path: {@code slice.links[1].rel} gives {@code rel}, {@code slice.links[1]} gives {@code links}. */
    private static String lastKey(String fieldPath) {
        String f = fieldPath.replaceAll("\\[\\d+]$", "");
        f = f.substring(f.lastIndexOf('.') + 1);
        return f.replaceAll("\\[\\d+]", "");
    }

    /** Line of the first frontmatter line whose key is {@code key}, else {@code fallback}. */
    private static int keyLine(MemoryDocument doc, String key, int fallback) {
        int end = doc.frontmatterSpan().map(MemoryDocument.Span::end).orElse(0);
        String[] lines = doc.text().substring(0, end).split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].stripLeading().startsWith(key + ":")) {
                return i + 1;
            }
        }
        return fallback;
    }

    private static void lintSections(MemoryDocument doc, FileType type, String p, List<LintProblem> out) {
        Map<SectionDef, MemoryDocument.Section> present = new HashMap<>();
        List<MemoryDocument.Section> canonicalInOrder = new ArrayList<>();
        int maxIndex = -1;
        for (MemoryDocument.Section s : doc.h2Sections()) {
            Optional<SectionDef> def = type.sections().stream()
                    .filter(d -> d.name().equals(s.heading()))
                    .findFirst();
            if (def.isEmpty()) {
                Optional<SectionDef> byAnchor = s.anchor() == null ? Optional.empty() : type.section(s.anchor());
                out.add(new LintProblem(
                        p,
                        s.line(),
                        "section-unknown",
                        "'" + s.heading() + "' is not a section of a " + type.name() + " file"
                                + byAnchor.map(d -> "; did you mean '" + d.name() + "'?")
                                        .orElse("")));
                continue;
            }
            SectionDef d = def.get();
            if (present.containsKey(d)) {
                out.add(new LintProblem(
                        p,
                        s.line(),
                        "section-duplicate",
                        "section '" + d.name() + "' appears again (first at line "
                                + present.get(d).line() + ")"));
                continue;
            }
            present.put(d, s);
            canonicalInOrder.add(s);
            int idx = type.indexOf(d);
            if (idx < maxIndex) {
                out.add(new LintProblem(
                        p,
                        s.line(),
                        "section-order",
                        "section '" + d.name() + "' must come before '"
                                + type.sections().get(maxIndex).name() + "'"));
            }
            maxIndex = Math.max(maxIndex, idx);
            if (s.anchor() == null) {
                out.add(new LintProblem(
                        p,
                        s.line(),
                        "anchor-missing",
                        "section '" + d.name() + "' needs '<!-- @anchor: " + d.anchor() + " v1 -->' on the next line"));
            } else if (!s.anchor().equals(d.anchor())) {
                out.add(new LintProblem(
                        p,
                        s.line() + 1,
                        "anchor-mismatch",
                        "section '" + d.name() + "' has anchor '" + s.anchor() + "', expected '" + d.anchor() + "'"));
            }
            SectionContentLint.lint(doc, d, s, p, out);
        }
        if (type.requiredSections()) {
            List<SectionDef> defs = type.sections();
            for (int i = 0; i < defs.size(); i++) {
                SectionDef d = defs.get(i);
                if (present.containsKey(d)) {
                    continue;
                }
                int line = Math.max(1, doc.lineCount());
                for (int j = i + 1; j < defs.size(); j++) {
                    if (present.containsKey(defs.get(j))) {
                        line = present.get(defs.get(j)).line();
                        break;
                    }
                }
                if (d.kind() == SectionKind.LOG) {
                    out.add(new LintProblem(
                            p,
                            line,
                            "change-log-missing",
                            "the Change Log section is missing; it may never be removed"));
                } else {
                    out.add(new LintProblem(p, line, "section-missing", "section '" + d.name() + "' is missing"));
                }
            }
        }
    }
}
