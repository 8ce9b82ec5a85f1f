package dev.memoryd.grammar;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A maintainer's change to the grammar (file grammar §13: "review Extensions → Core promotions;
 * tune linting and caps"), as a pure function from one grammar to the next.
 *
 * <p>Contract: {@link #apply} never changes its input; it answers {@link Refused} for a change
 * that names no file type or section, or that the grammar cannot take, and otherwise
 * {@link Edited}: the next grammar (its version one more), its {@code grammar.yaml} text as
 * {@link #toYaml} writes it and every template text, all validated by {@link Grammar#load}.
 * The same change on the same grammar always gives the same texts, so replaying the event that
 * recorded it reproduces them byte for byte.
 */
public final class GrammarEdit {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The trailing sections a promoted section goes before (file grammar §3). */
    private static final Set<String> TRAILING = Set.of("open-questions", "change-log", "extensions");

    private GrammarEdit() {}

    /** One change. */
    public sealed interface Change permits Promote, Reject, SetCap, SetKind {
        String fileType();
    }

    /** Promote H3 {@code heading} of Extensions to a core H2 section of kind {@code kind}. */
    public record Promote(String fileType, String heading, SectionKind kind) implements Change {
        public Promote {
            java.util.Objects.requireNonNull(fileType, "fileType");
            java.util.Objects.requireNonNull(heading, "heading");
            java.util.Objects.requireNonNull(kind, "kind");
        }
    }

    /** Record that H3 {@code heading} of Extensions is not to be promoted (nor proposed again). */
    public record Reject(String fileType, String heading) implements Change {
        public Reject {
            java.util.Objects.requireNonNull(fileType, "fileType");
            java.util.Objects.requireNonNull(heading, "heading");
        }
    }

    /** Set the soft cap of a section: {@code max_words} (narrative) or {@code max_items} (list). */
    public record SetCap(String fileType, String section, String cap, int value) implements Change {
        public SetCap {
            java.util.Objects.requireNonNull(fileType, "fileType");
            java.util.Objects.requireNonNull(section, "section");
            if (!"max_words".equals(cap) && !"max_items".equals(cap)) {
                throw new IllegalArgumentException("cap must be max_words or max_items");
            }
        }
    }

    /**
     * Make a narrative section a list or a list a narrative one. Its caps start again as a new
     * section's: a narrative gets {@code max_words} {@value #DEFAULT_MAX_WORDS}, a list no cap.
     * Evidence sections, the Change Log and Extensions keep their kind.
     */
    public record SetKind(String fileType, String section, SectionKind kind) implements Change {
        public SetKind {
            java.util.Objects.requireNonNull(fileType, "fileType");
            java.util.Objects.requireNonNull(section, "section");
            java.util.Objects.requireNonNull(kind, "kind");
        }
    }

    /** The word cap of a section that becomes narrative (a promotion's or a change of kind's). */
    public static final int DEFAULT_MAX_WORDS = 400;

    /** What a change gives. */
    public sealed interface Result permits Edited, Refused {}

    /** The next grammar; {@code promoted} is the new section of a promotion, else null. */
    public record Edited(Grammar grammar, String yaml, SectionDef promoted) implements Result {}

    /** Not possible: {@code unknown} is true when the change names no such file type or section. */
    public record Refused(String message, boolean unknown) implements Result {}

    /** The grammar after {@code change}. */
    public static Result apply(Grammar g, Change change) {
        FileType type;
        try {
            type = g.fileType(change.fileType());
        } catch (IllegalArgumentException e) {
            return new Refused(e.getMessage(), true);
        }
        List<FileType> types = new ArrayList<>(g.fileTypes());
        List<Grammar.Rejection> rejections = new ArrayList<>(g.rejections());
        Map<String, String> templates = new LinkedHashMap<>(g.templates());
        SectionDef promoted = null;
        if (change instanceof Promote p) {
            if (type.section("extensions").isEmpty()) {
                return new Refused("a " + type.name() + " file has no Extensions section to promote from", false);
            }
            String heading = p.heading().strip();
            String anchor = Grammar.slug(heading);
            if (heading.isEmpty() || anchor.isEmpty() || heading.contains("\n") || heading.startsWith("#")) {
                return new Refused("'" + p.heading() + "' cannot be a section heading", false);
            }
            if (p.kind() != SectionKind.NARRATIVE && p.kind() != SectionKind.LIST) {
                return new Refused("a promoted section is narrative or list", false);
            }
            if (type.section(heading).isPresent() || type.section(anchor).isPresent()) {
                return new Refused(
                        "a " + type.name() + " file already has a section '" + heading + "' (or anchor '" + anchor
                                + "')",
                        false);
            }
            promoted = new SectionDef(
                    heading,
                    anchor,
                    p.kind(),
                    true,
                    false,
                    p.kind() == SectionKind.NARRATIVE ? OptionalInt.of(DEFAULT_MAX_WORDS) : OptionalInt.empty(),
                    OptionalInt.empty());
            List<SectionDef> sections = new ArrayList<>(type.sections());
            int at = insertionIndex(sections);
            sections.add(at, promoted);
            types.set(
                    types.indexOf(type),
                    new FileType(type.name(), type.paths(), type.templateName(), type.requiredSections(), sections));
            String template = templates.get(type.templateName());
            templates.put(type.templateName(), Promotion.migrate(template, sections, promoted));
            rejections.remove(new Grammar.Rejection(type.name(), heading));
        } else if (change instanceof Reject r) {
            Grammar.Rejection rej =
                    new Grammar.Rejection(type.name(), r.heading().strip());
            if (rejections.contains(rej)) {
                return new Refused(
                        "the promotion of '" + rej.heading() + "' in " + type.name() + " files is already rejected",
                        false);
            }
            rejections.add(rej);
        } else if (change instanceof SetKind k) {
            var def = type.section(k.section());
            if (def.isEmpty()) {
                return new Refused("a " + type.name() + " file has no section '" + k.section() + "'", true);
            }
            SectionDef d = def.get();
            if (k.kind() != SectionKind.NARRATIVE && k.kind() != SectionKind.LIST) {
                return new Refused("a section's kind can be changed to narrative or list only", false);
            }
            if (d.kind() != SectionKind.NARRATIVE && d.kind() != SectionKind.LIST) {
                return new Refused(
                        "'" + d.name() + "' is the " + d.kind().wireName() + " section: its kind is fixed", false);
            }
            if (d.evidence()) {
                return new Refused("'" + d.name() + "' holds evidence bullets: it stays a list", false);
            }
            if (d.kind() == k.kind()) {
                return new Refused(
                        "'" + d.name() + "' of " + type.name() + " files is a "
                                + d.kind().wireName() + " section already",
                        false);
            }
            boolean narrative = k.kind() == SectionKind.NARRATIVE;
            SectionDef next = new SectionDef(
                    d.name(),
                    d.anchor(),
                    k.kind(),
                    d.core(),
                    false,
                    narrative ? OptionalInt.of(DEFAULT_MAX_WORDS) : OptionalInt.empty(),
                    OptionalInt.empty());
            List<SectionDef> sections = new ArrayList<>(type.sections());
            sections.set(sections.indexOf(d), next);
            types.set(
                    types.indexOf(type),
                    new FileType(type.name(), type.paths(), type.templateName(), type.requiredSections(), sections));
        } else {
            SetCap c = (SetCap) change;
            var def = type.section(c.section());
            if (def.isEmpty()) {
                return new Refused("a " + type.name() + " file has no section '" + c.section() + "'", true);
            }
            SectionDef d = def.get();
            boolean words = c.cap().equals("max_words");
            if (words ? d.kind() != SectionKind.NARRATIVE : d.kind() != SectionKind.LIST) {
                return new Refused(
                        "'" + d.name() + "' is a " + d.kind().name().toLowerCase(java.util.Locale.ROOT)
                                + " section: its cap is " + (words ? "max_items" : "max_words"),
                        false);
            }
            if (c.value() < 1) {
                return new Refused("a cap is a positive number", false);
            }
            SectionDef next = new SectionDef(
                    d.name(),
                    d.anchor(),
                    d.kind(),
                    d.core(),
                    d.evidence(),
                    words ? OptionalInt.of(c.value()) : d.maxWords(),
                    words ? d.maxItems() : OptionalInt.of(c.value()));
            List<SectionDef> sections = new ArrayList<>(type.sections());
            sections.set(sections.indexOf(d), next);
            types.set(
                    types.indexOf(type),
                    new FileType(type.name(), type.paths(), type.templateName(), type.requiredSections(), sections));
        }
        String yaml = toYaml(g.version() + 1, types, rejections);
        Grammar next;
        try {
            next = Grammar.load(yaml, templates);
        } catch (IllegalArgumentException e) {
            return new Refused("the grammar would not load: " + e.getMessage(), false);
        }
        return new Edited(next, yaml, promoted);
    }

    /** Where a promoted section goes: before the trailing Open Questions, Change Log and Extensions. */
    private static int insertionIndex(List<SectionDef> sections) {
        int i = sections.size();
        while (i > 0 && TRAILING.contains(sections.get(i - 1).anchor())) {
            i--;
        }
        return i;
    }

    /** The {@code grammar.yaml} text of a grammar, one line per section, as the shipped file lays it out. */
    public static String toYaml(Grammar g) {
        return toYaml(g.version(), g.fileTypes(), g.rejections());
    }

    private static String toYaml(int version, List<FileType> types, List<Grammar.Rejection> rejections) {
        StringBuilder b = new StringBuilder();
        b.append("# memoryd file grammar, as changed by maintainers (grammar.set_cap, promotions.accept,\n");
        b.append("# promotions.reject); the fields are described in the grammar.yaml memoryd ships.\n");
        b.append("version: ").append(version).append('\n');
        if (!rejections.isEmpty()) {
            b.append("rejected_promotions:\n");
            for (Grammar.Rejection r : rejections) {
                b.append("  - {file_type: ")
                        .append(q(r.fileType()))
                        .append(", heading: ")
                        .append(q(r.heading()))
                        .append("}\n");
            }
        }
        b.append("file_types:\n");
        for (FileType t : types) {
            b.append("  - name: ").append(q(t.name())).append('\n');
            b.append("    paths:\n");
            for (FileType.PathPattern p : t.paths()) {
                b.append("      - {pattern: ")
                        .append(q(p.pattern()))
                        .append(", entity_type: ")
                        .append(q(p.entityType()))
                        .append("}\n");
            }
            b.append("    template: ").append(q(t.templateName())).append('\n');
            b.append("    required_sections: ").append(t.requiredSections()).append('\n');
            b.append("    sections:\n");
            for (SectionDef s : t.sections()) {
                b.append("      - {name: ")
                        .append(q(s.name()))
                        .append(", anchor: ")
                        .append(q(s.anchor()))
                        .append(", kind: ")
                        .append(s.kind().name().toLowerCase(java.util.Locale.ROOT))
                        .append(", core: ")
                        .append(s.core());
                if (s.evidence()) {
                    b.append(", evidence: true");
                }
                s.maxWords().ifPresent(w -> b.append(", max_words: ").append(w));
                s.maxItems().ifPresent(i -> b.append(", max_items: ").append(i));
                b.append("}\n");
            }
        }
        return b.toString();
    }

    /** A YAML double-quoted scalar (JSON's escapes are a subset of YAML's). */
    private static String q(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
