package dev.memoryd.grammar;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Users' governance markers in a memory file's frontmatter (file-grammar §13), read by the
 * daemon: {@code slice.meta.review: true} sends every agent write to the file to a proposal, and
 * {@code slice.meta.review_sections: [anchor, ...]} does so for those sections (locks are
 * enforced by {@link Declarations}). Pure and thread-safe.
 */
public final class Governance {
    private Governance() {}

    /** Whether an agent's change of section {@code anchor} (an H3 as {@code parent/sub}) must be reviewed. */
    public static boolean needsReview(String text, String anchor) {
        JsonNode fm = MemoryDocument.parse(text).frontmatter();
        if (fm == null) {
            return false;
        }
        JsonNode meta = fm.path("slice").path("meta");
        if (meta.path("review").asBoolean(false)) {
            return true;
        }
        if (anchor == null) {
            return false;
        }
        String top = anchor.contains("/") ? anchor.substring(0, anchor.indexOf('/')) : anchor;
        JsonNode list = meta.path("review_sections");
        if (list.isTextual()) {
            return list.asText().equals(top);
        }
        for (JsonNode n : list) {
            if (n.asText().equals(top)) {
                return true;
            }
        }
        return false;
    }
}
