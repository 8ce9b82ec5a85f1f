package dev.memoryd.grammar;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * One canonical section of a file type, as defined in grammar.yaml.
 *
 * @param name      canonical H2 heading text (exact, case-sensitive)
 * @param anchor    slug of the anchor comment under the heading
 * @param kind      what the section holds, which decides the allowed ops
 * @param core      core sections can never be tombstoned
 * @param evidence  items need a quote and an {@code ev:} token
 * @param maxWords  soft word cap (narrative), empty if none
 * @param maxItems  soft bullet cap (list), empty if none
 */
public record SectionDef(
        String name,
        String anchor,
        SectionKind kind,
        boolean core,
        boolean evidence,
        OptionalInt maxWords,
        OptionalInt maxItems) {
    public SectionDef {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(anchor, "anchor");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(maxWords, "maxWords");
        Objects.requireNonNull(maxItems, "maxItems");
    }

    /** Whether tombstone_section may target this section (never core, never the Change Log). */
    public boolean tombstonable() {
        return !core && kind != SectionKind.LOG;
    }
}
