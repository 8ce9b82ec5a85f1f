package dev.memoryd.grammar;

import java.util.List;

/**
 * {@code curate_items}: removes items and merges groups of items of a list section, by
 * exact item text, with a required reason that goes to the Change Log.
 */
public record CurateItems(
        RepoPath path,
        String section,
        List<String> remove,
        List<Merge> merge,
        String reason,
        String beforeHash,
        List<String> evidenceRefs,
        String overrideRationale)
        implements Op {

    /** Replace {@code items} by one bullet {@code into} at the position of the first of them. */
    public record Merge(List<String> items, String into) {
        public Merge {
            items = Op.list(items);
        }
    }

    public CurateItems {
        remove = Op.list(remove);
        merge = merge == null ? List.of() : List.copyOf(merge);
        evidenceRefs = Op.list(evidenceRefs);
    }

    public CurateItems(RepoPath path, String section, List<String> remove, List<Merge> merge, String reason) {
        this(path, section, remove, merge, reason, null, List.of(), null);
    }

    @Override
    public String opName() {
        return "curate_items";
    }
}
