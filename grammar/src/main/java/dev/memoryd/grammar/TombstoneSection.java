package dev.memoryd.grammar;

import java.util.List;

/**
 * {@code tombstone_section}: keeps the heading and anchor of an optional section or an
 * H3 subsection (named by its heading text) and replaces its body by a tombstone line.
 */
public record TombstoneSection(
        RepoPath path,
        String section,
        String reason,
        String beforeHash,
        List<String> evidenceRefs,
        String overrideRationale)
        implements Op {
    public TombstoneSection {
        evidenceRefs = Op.list(evidenceRefs);
    }

    public TombstoneSection(RepoPath path, String section, String reason) {
        this(path, section, reason, null, List.of(), null);
    }

    @Override
    public String opName() {
        return "tombstone_section";
    }
}
