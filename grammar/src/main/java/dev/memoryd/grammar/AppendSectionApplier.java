package dev.memoryd.grammar;

import java.util.List;

/** {@code append_section}: one paragraph appended to a narrative section's body. */
final class AppendSectionApplier {
    private AppendSectionApplier() {}

    static SectionEdit apply(AppendSection a, SectionEdit.Target t) {
        String c = OpText.content(a.content(), "content");
        if (c.contains("\n\n") || c.lines().anyMatch(String::isBlank)) {
            throw new OpRejected(Reason.INVALID_OP, "append_section takes one paragraph; content has blank lines");
        }
        String before = t.canonical();
        return new SectionEdit(
                OpText.layout(before.isEmpty() ? c : before + "\n" + c, t.last()),
                "appended to " + t.label(),
                List.of());
    }
}
