package dev.memoryd.grammar;

import java.util.List;

/**
 * {@code tombstone_section}: an optional section's (or an H3 subsection's) body becomes one
 * dated line with the reason; core sections are never tombstoned.
 */
final class TombstoneSectionApplier {
    private TombstoneSectionApplier() {}

    static SectionEdit apply(TombstoneSection op, SectionEdit.Target t) {
        if (t.named() && !t.def().tombstonable()) {
            throw new OpRejected(
                    Reason.PROHIBITED, "'" + t.def().name() + "' is a core section and can never be tombstoned");
        }
        return new SectionEdit(
                OpText.layout("_Tombstoned " + t.date() + ": " + OpText.line(op.reason(), "reason") + "_\n", t.last()),
                "tombstoned " + t.label(),
                List.of());
    }
}
