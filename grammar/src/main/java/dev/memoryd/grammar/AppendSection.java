package dev.memoryd.grammar;

import java.util.List;

/** {@code append_section}: appends one paragraph to a narrative section. */
public record AppendSection(
        RepoPath path,
        String section,
        String content,
        String beforeHash,
        List<String> evidenceRefs,
        String overrideRationale)
        implements Op {
    public AppendSection {
        evidenceRefs = Op.list(evidenceRefs);
    }

    public AppendSection(RepoPath path, String section, String content) {
        this(path, section, content, null, List.of(), null);
    }

    @Override
    public String opName() {
        return "append_section";
    }
}
