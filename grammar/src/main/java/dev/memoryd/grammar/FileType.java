package dev.memoryd.grammar;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One file type of the grammar (user overview, part profile, relationship profile,
 * notes), as defined in grammar.yaml.
 *
 * @param name             {@code user}, {@code part}, {@code relationship} or {@code notes}
 * @param paths            path patterns with the entity type a matching file describes
 * @param templateName     file name under templates/ used by create_entity
 * @param requiredSections whether every section must be present (false for notes)
 * @param sections         canonical sections in required order
 */
public record FileType(
        String name,
        List<PathPattern> paths,
        String templateName,
        boolean requiredSections,
        List<SectionDef> sections) {

    /**
     * A path pattern such as {@code users/{user_id}/parts/{entity_id}/profile.md}.
     *
     * @param pattern    the pattern with {@code {user_id}} and optionally {@code {entity_id}}
     * @param entityType entity type of a matching file (user, part, relationship)
     */
    public record PathPattern(String pattern, String entityType) {
        public PathPattern {
            Objects.requireNonNull(pattern, "pattern");
            Objects.requireNonNull(entityType, "entityType");
        }
    }

    public FileType {
        Objects.requireNonNull(name, "name");
        paths = List.copyOf(paths);
        Objects.requireNonNull(templateName, "templateName");
        sections = List.copyOf(sections);
    }

    /** The first (for non-notes types: the only) path pattern. */
    public String pathPattern() {
        return paths.get(0).pattern();
    }

    /** The section with this exact canonical name or anchor slug. */
    public Optional<SectionDef> section(String nameOrAnchor) {
        for (SectionDef s : sections) {
            if (s.name().equals(nameOrAnchor) || s.anchor().equals(nameOrAnchor)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** Index of a section in canonical order, -1 if not part of this type. */
    int indexOf(SectionDef def) {
        return sections.indexOf(def);
    }

    /** The Change Log section, if this type has one. */
    public Optional<SectionDef> changeLog() {
        return sections.stream().filter(s -> s.kind() == SectionKind.LOG).findFirst();
    }
}
