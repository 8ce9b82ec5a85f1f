package dev.memoryd.grammar;

import java.util.List;

/** {@code replace_section}: the section's body becomes the op's content (each bullet evidence in an evidence section). */
final class ReplaceSectionApplier {
    private ReplaceSectionApplier() {}

    static SectionEdit apply(ReplaceSection r, SectionEdit.Target t) {
        String c = OpText.content(r.content(), "content");
        if (t.def().evidence()) {
            for (Bodies.Bullet b : Bodies.bullets(c, 1)) {
                OpText.evidence(b.text(), "content");
            }
        }
        return new SectionEdit(OpText.layout(c, t.last()), "replaced " + t.label(), List.of());
    }
}
