package dev.memoryd.grammar.slices;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The relationship table of Slices v1: every relation name, its inverse, and whether it is
 * transitive or symmetric.
 *
 * <p>Contract: both directions' names are relations of their own ({@code blocks} is the
 * inverse of {@code depends_on} and vice versa); an inverse name shares the transitivity of
 * its forward name. {@code see_also} is its own inverse and the only symmetric relation.
 * Names are case-sensitive. Pure and thread-safe.
 */
public final class Relations {

    /**
     * One relation name and its properties.
     *
     * @param name       the name as written in {@code rel:}
     * @param inverse    the name of the same link read from the other end
     * @param transitive A r B and B r C imply A r C
     * @param symmetric  A r B implies B r A
     * @param forward    whether this is the name in the spec table's first column
     */
    public record Relation(String name, String inverse, boolean transitive, boolean symmetric, boolean forward) {}

    private static final Map<String, Relation> ALL = build();

    private Relations() {}

    private static Map<String, Relation> build() {
        Map<String, Relation> m = new LinkedHashMap<>();
        forward(m, "depends_on", "blocks", true);
        forward(m, "evidence_for", "evidence_against", false);
        forward(m, "supersedes", "superseded_by", true);
        forward(m, "parent", "child", true);
        forward(m, "part_of", "has_part", true);
        forward(m, "is_a", "type_of", true);
        forward(m, "derived_from", "source_of", true);
        m.put("see_also", new Relation("see_also", "see_also", false, true, true));
        forward(m, "routes_to", "routed_from", false);
        return java.util.Collections.unmodifiableMap(m);
    }

    private static void forward(Map<String, Relation> m, String name, String inverse, boolean transitive) {
        m.put(name, new Relation(name, inverse, transitive, false, true));
        m.put(inverse, new Relation(inverse, name, transitive, false, false));
    }

    /** The relation named {@code name}, if it is in the table. */
    public static Optional<Relation> of(String name) {
        return Optional.ofNullable(name == null ? null : ALL.get(name));
    }

    /** All 17 names, forward name then inverse, in the spec table's order. */
    public static Set<String> names() {
        return ALL.keySet();
    }

    /** All relations in the order of {@link #names()}. */
    public static List<Relation> all() {
        return List.copyOf(ALL.values());
    }

    /** Whether {@code name} is a known relation. */
    public static boolean isKnown(String name) {
        return of(name).isPresent();
    }
}
