package dev.memoryd.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a section op may do to a section beyond its own rules: a section its owner locked is
 * refused ({@code section_locked}), and a result over the section's cap (words or items) is
 * refused ({@code cap_exceeded}) unless the op gives an {@code override_rationale}, which the
 * Change Log then records. Pure; refusals are {@link OpRejected}.
 */
final class CapsAndLocks {
    private CapsAndLocks() {}

    /**
     * Governance (file-grammar §13): a user locks sections by listing their anchors (or
     * names) under {@code slice.meta.locked_sections}; agents' ops on them are refused. A
     * lock on a section covers its subsections.
     */
    static void checkLock(MemoryDocument doc, RepoPath path, SectionDef def, String label) {
        JsonNode locked = doc.frontmatter().path("slice").path("meta").path("locked_sections");
        if (locked.isTextual()) {
            locked = JsonNodeFactory.instance.arrayNode().add(locked.asText());
        }
        for (JsonNode l : locked) {
            if (l.asText().equals(def.anchor()) || l.asText().equals(def.name())) {
                Map<String, Object> d = new LinkedHashMap<>(); // in this order on the wire
                d.put("path", path.value());
                d.put("section", def.anchor());
                throw new OpRejected(
                        Reason.SECTION_LOCKED,
                        "section '" + label + "' of " + path
                                + " is locked by its owner (slice.meta.locked_sections); only a human edits it",
                        d);
            }
        }
    }

    /**
     * Checks {@code newBody} against the section's cap: empty when within it, else the Change Log
     * line of the op's override (dated {@code date}); refused when over it without one.
     */
    static Optional<String> checkCaps(Op op, SectionDef def, String newBody, RepoPath path, String date) {
        int limit;
        int actual;
        String unit;
        if (def.kind() == SectionKind.NARRATIVE && def.maxWords().isPresent()) {
            limit = def.maxWords().getAsInt();
            actual = Bodies.words(newBody);
            unit = "words";
        } else if (def.kind() == SectionKind.LIST && def.maxItems().isPresent()) {
            limit = def.maxItems().getAsInt();
            actual = Bodies.bullets(newBody, 1).size();
            unit = "items";
        } else {
            return Optional.empty();
        }
        if (actual <= limit) {
            return Optional.empty();
        }
        String why = op.overrideRationale();
        if (why == null || why.isBlank()) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("limit", limit);
            d.put("actual", actual);
            d.put("unit", unit);
            throw new OpRejected(
                    Reason.CAP_EXCEEDED,
                    "section '" + def.name() + "' of " + path + " would have " + actual + " " + unit + " (cap " + limit
                            + "); give override_rationale to exceed it",
                    d);
        }
        return Optional.of(date + ": cap override on " + def.name() + ": " + OpText.line(why, "override_rationale"));
    }
}
