package dev.memoryd.grammar;

import java.util.List;

/** {@code replace_section}: replaces the whole body of a narrative or list section. */
public record ReplaceSection(
        RepoPath path,
        String section,
        String content,
        String beforeHash,
        List<String> evidenceRefs,
        String overrideRationale)
        implements Op {
    public ReplaceSection {
        evidenceRefs = Op.list(evidenceRefs);
    }

    public ReplaceSection(RepoPath path, String section, String content) {
        this(path, section, content, null, List.of(), null);
    }

    @Override
    public String opName() {
        return "replace_section";
    }
}
