package dev.memoryd.grammar;

/**
 * What a section holds and therefore which ops may touch it: narrative
 * (replace_section, append_section), list (replace_section, append_item, curate_items),
 * log (the Change Log, written only by the daemon), extensions (free form; its H3
 * subsections may be tombstoned).
 */
public enum SectionKind {
    NARRATIVE,
    LIST,
    LOG,
    EXTENSIONS;

    /** The lower-case form used in grammar.yaml. */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
