package dev.memoryd.grammar;

import java.util.List;

/** {@code append_item}: appends one bullet to a list section. */
public record AppendItem(
        RepoPath path,
        String section,
        String item,
        String beforeHash,
        List<String> evidenceRefs,
        String overrideRationale)
        implements Op {
    public AppendItem {
        evidenceRefs = Op.list(evidenceRefs);
    }

    public AppendItem(RepoPath path, String section, String item) {
        this(path, section, item, null, List.of(), null);
    }

    @Override
    public String opName() {
        return "append_item";
    }
}
