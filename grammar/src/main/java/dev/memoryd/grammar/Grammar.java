package dev.memoryd.grammar;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The memory-file grammar, loaded from data (templates/grammar.yaml plus the templates).
 *
 * <p>Contract: immutable and thread-safe once loaded. {@link #load} validates the
 * definition and renders every template with sample values and lints it, so a broken
 * grammar or template fails at start-up with {@link IllegalArgumentException} rather
 * than on the first write. Lookups are exact and case-sensitive.
 */
public final class Grammar {

    /** Entity ids and user ids: lower-case slug, 1–63 chars. */
    public static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z_]+)}}");
    private static final Pattern VAR = Pattern.compile("\\{(user_id|entity_id)}");

    private final int version;
    private final List<FileType> fileTypes;
    private final List<Rejection> rejections;
    private final Map<String, FileType> byName;
    private final Map<String, String> templates;
    /** Compiled path regexes, parallel to the patterns of each file type. */
    private final List<CompiledPattern> compiled;

    private record CompiledPattern(FileType type, FileType.PathPattern pattern, Pattern regex, List<String> vars) {}

    /** A promotion a maintainer turned down: H3 {@code heading} of the Extensions of {@code fileType}. */
    public record Rejection(String fileType, String heading) {
        public Rejection {
            java.util.Objects.requireNonNull(fileType, "fileType");
            java.util.Objects.requireNonNull(heading, "heading");
        }
    }

    private Grammar(int version, List<FileType> fileTypes, List<Rejection> rejections, Map<String, String> templates) {
        this.version = version;
        this.rejections = List.copyOf(rejections);
        this.fileTypes = List.copyOf(fileTypes);
        Map<String, FileType> m = new LinkedHashMap<>();
        List<CompiledPattern> c = new ArrayList<>();
        for (FileType t : fileTypes) {
            if (m.put(t.name(), t) != null) {
                throw new IllegalArgumentException("grammar: duplicate file type '" + t.name() + "'");
            }
            for (FileType.PathPattern p : t.paths()) {
                c.add(compile(t, p));
            }
        }
        this.byName = Map.copyOf(m);
        this.templates = Map.copyOf(templates);
        this.compiled = List.copyOf(c);
    }

    private static CompiledPattern compile(FileType t, FileType.PathPattern p) {
        StringBuilder re = new StringBuilder();
        List<String> vars = new ArrayList<>();
        Matcher m = VAR.matcher(p.pattern());
        int last = 0;
        while (m.find()) {
            re.append(Pattern.quote(p.pattern().substring(last, m.start())));
            re.append("(").append(ID.pattern()).append(")");
            vars.add(m.group(1));
            last = m.end();
        }
        re.append(Pattern.quote(p.pattern().substring(last)));
        if (!vars.contains("user_id")) {
            throw new IllegalArgumentException("grammar: path pattern without {user_id}: " + p.pattern());
        }
        return new CompiledPattern(t, p, Pattern.compile(re.toString()), List.copyOf(vars));
    }

    /**
     * Loads and validates a grammar.
     *
     * @param grammarYaml      the text of grammar.yaml
     * @param templatesByName  template file name (e.g. {@code user.md}) to template text
     * @throws IllegalArgumentException if the definition or a template is invalid
     */
    public static Grammar load(String grammarYaml, Map<String, String> templatesByName) {
        JsonNode root;
        try {
            root = new YAMLMapper().readTree(grammarYaml);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("grammar: invalid YAML: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.path("file_types").isArray()) {
            throw new IllegalArgumentException("grammar: missing 'file_types' list");
        }
        int version = root.path("version").asInt(1);
        if (version < 1) {
            throw new IllegalArgumentException("grammar: 'version' must be a positive integer");
        }
        List<Rejection> rejections = new ArrayList<>();
        for (JsonNode r : root.path("rejected_promotions")) {
            rejections.add(new Rejection(
                    text(r, "file_type", "rejected_promotions"), text(r, "heading", "rejected_promotions")));
        }
        List<FileType> types = new ArrayList<>();
        for (JsonNode t : root.get("file_types")) {
            String name = text(t, "name", "file type");
            List<FileType.PathPattern> paths = new ArrayList<>();
            for (JsonNode p : t.path("paths")) {
                paths.add(new FileType.PathPattern(text(p, "pattern", name), text(p, "entity_type", name)));
            }
            if (paths.isEmpty()) {
                throw new IllegalArgumentException("grammar: file type '" + name + "' has no paths");
            }
            List<SectionDef> sections = new ArrayList<>();
            for (JsonNode s : t.path("sections")) {
                String sname = text(s, "name", name);
                SectionKind kind;
                try {
                    kind = SectionKind.valueOf(text(s, "kind", sname).toUpperCase(java.util.Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("grammar: section '" + sname + "' has unknown kind", e);
                }
                OptionalInt maxWords = s.has("max_words")
                        ? OptionalInt.of(s.get("max_words").asInt())
                        : kind == SectionKind.NARRATIVE ? OptionalInt.of(400) : OptionalInt.empty();
                OptionalInt maxItems =
                        s.has("max_items") ? OptionalInt.of(s.get("max_items").asInt()) : OptionalInt.empty();
                String anchor = text(s, "anchor", sname);
                if (!anchor.equals(slug(sname)) && !anchor.equals(slug(sname.replaceAll("\\s*\\(.*\\)$", "")))) {
                    throw new IllegalArgumentException(
                            "grammar: anchor '" + anchor + "' is not a slug of '" + sname + "'");
                }
                sections.add(new SectionDef(
                        sname,
                        anchor,
                        kind,
                        s.path("core").asBoolean(false),
                        s.path("evidence").asBoolean(false),
                        maxWords,
                        maxItems));
            }
            if (sections.stream().map(SectionDef::anchor).distinct().count() != sections.size()) {
                throw new IllegalArgumentException("grammar: file type '" + name + "' has duplicate anchors");
            }
            types.add(new FileType(
                    name,
                    paths,
                    text(t, "template", name),
                    t.path("required_sections").asBoolean(true),
                    sections));
        }
        Grammar g = new Grammar(version, types, rejections, templatesByName);
        g.validateTemplates();
        return g;
    }

    private static String text(JsonNode n, String field, String where) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new IllegalArgumentException("grammar: '" + where + "' needs a string '" + field + "'");
        }
        return v.asText();
    }

    /** Slug rule of anchors: lower-case, runs of non-alphanumerics become '-', trimmed. */
    public static String slug(String heading) {
        String s = heading.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
        return s.replaceAll("^-+|-+$", "");
    }

    /** Renders each template with sample values and lints it, so bad data fails at load. */
    private void validateTemplates() {
        for (FileType t : fileTypes) {
            if (!templates.containsKey(t.templateName())) {
                throw new IllegalArgumentException("grammar: template '" + t.templateName() + "' not supplied");
            }
            FileType.PathPattern p = t.paths().get(t.paths().size() - 1);
            String path = p.pattern().replace("{user_id}", "sample-user").replace("{entity_id}", "sample-entity");
            Map<String, String> vars = new LinkedHashMap<>();
            vars.put("slice_id", "01JC0000000000000000000000");
            vars.put("user_id", "sample-user");
            vars.put("entity_type", p.entityType());
            vars.put("entity_id", p.pattern().contains("{entity_id}") ? "sample-entity" : "sample-user");
            vars.put("title", "Sample: \"title\"");
            vars.put("now", "2026-01-01T00:00:00Z");
            vars.put("participant_a", "part-a");
            vars.put("participant_b", "part-b");
            vars.put("user_slice_id", "01JC0000000000000000000001");
            vars.put("profile_slice_id", "01JC0000000000000000000000");
            vars.put("participant_a_slice_id", "01JC0000000000000000000002");
            vars.put("participant_b_slice_id", "01JC0000000000000000000003");
            String text = render(t.templateName(), vars);
            List<LintProblem> problems = new Linter().lint(this, RepoPath.of(path), text);
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException(
                        "grammar: template '" + t.templateName() + "' does not lint clean: " + problems.get(0));
            }
        }
    }

    /** The grammar's version: 1 as shipped, one more with each change a maintainer makes. */
    public int version() {
        return version;
    }

    /** The promotions maintainers turned down, in the order they did. */
    public List<Rejection> rejections() {
        return rejections;
    }

    /** Every template text by file name. */
    public Map<String, String> templates() {
        return templates;
    }

    /** All file types in definition order. */
    public List<FileType> fileTypes() {
        return fileTypes;
    }

    /** The file type with this name. @throws IllegalArgumentException if there is none */
    public FileType fileType(String name) {
        FileType t = byName.get(name);
        if (t == null) {
            throw new IllegalArgumentException("unknown file type '" + name + "'; expected one of " + byName.keySet());
        }
        return t;
    }

    /** The file type whose path pattern matches, if any. */
    public Optional<FileType> fileTypeOf(RepoPath path) {
        return match(path).map(PathMatch::fileType);
    }

    /** Matches a path against the patterns, extracting user and entity ids. */
    public Optional<PathMatch> match(RepoPath path) {
        Optional<PathMatch> hit = matches.get(path);
        if (hit == null) {
            hit = matchUncached(path);
            if (matches.size() < 100_000) { // bounded: a path's match never changes
                matches.put(path, hit);
            }
        }
        return hit;
    }

    private final java.util.concurrent.ConcurrentHashMap<RepoPath, Optional<PathMatch>> matches =
            new java.util.concurrent.ConcurrentHashMap<>();

    private Optional<PathMatch> matchUncached(RepoPath path) {
        for (CompiledPattern c : compiled) {
            Matcher m = c.regex().matcher(path.value());
            if (m.matches()) {
                String user = null;
                String entity = null;
                for (int i = 0; i < c.vars().size(); i++) {
                    if (c.vars().get(i).equals("user_id")) {
                        user = m.group(i + 1);
                    } else {
                        entity = m.group(i + 1);
                    }
                }
                return Optional.of(
                        new PathMatch(c.type(), user, c.pattern().entityType(), entity == null ? user : entity));
            }
        }
        return Optional.empty();
    }

    /** The path of a file of this type for the given ids (entity type picks among notes patterns). */
    public RepoPath pathFor(FileType type, String entityType, String userId, String entityId) {
        for (FileType.PathPattern p : type.paths()) {
            if (p.entityType().equals(entityType)) {
                return RepoPath.of(p.pattern().replace("{user_id}", userId).replace("{entity_id}", entityId));
            }
        }
        throw new IllegalArgumentException(
                "file type '" + type.name() + "' has no path for entity type '" + entityType + "'");
    }

    /** The section of a file type with this exact canonical heading or anchor slug. */
    public Optional<SectionDef> section(FileType type, String nameOrAnchor) {
        return type.section(nameOrAnchor);
    }

    /** The raw template text. @throws IllegalArgumentException if not supplied */
    public String template(String name) {
        String t = templates.get(name);
        if (t == null) {
            throw new IllegalArgumentException("no template '" + name + "'");
        }
        return t;
    }

    /**
     * Fills {@code {{name}}} placeholders. Inside the frontmatter values are escaped for a
     * YAML double-quoted string (JSON escapes are a subset of YAML's), so a title with
     * quotes or colons cannot break the YAML; in the body they are inserted verbatim.
     *
     * @throws IllegalArgumentException on a placeholder with no value
     */
    public String render(String templateName, Map<String, String> vars) {
        String t = template(templateName);
        int fmEnd = MemoryDocument.frontmatterEnd(t);
        StringBuilder out = new StringBuilder();
        Matcher m = PLACEHOLDER.matcher(t);
        int last = 0;
        while (m.find()) {
            String v = vars.get(m.group(1));
            if (v == null) {
                throw new IllegalArgumentException(
                        "template '" + templateName + "': no value for {{" + m.group(1) + "}}");
            }
            out.append(t, last, m.start());
            out.append(m.start() < fmEnd ? yamlEscape(v) : v);
            last = m.end();
        }
        out.append(t.substring(last));
        return out.toString();
    }

    private static String yamlEscape(String v) {
        StringBuilder b = new StringBuilder();
        for (char c : v.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }
}
