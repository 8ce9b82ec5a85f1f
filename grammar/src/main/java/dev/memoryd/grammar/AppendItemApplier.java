package dev.memoryd.grammar;

import java.util.List;

/** {@code append_item}: one bullet after a list section's last one (an evidence item in an evidence section). */
final class AppendItemApplier {
    private AppendItemApplier() {}

    static SectionEdit apply(AppendItem a, SectionEdit.Target t) {
        String item = OpText.item(a.item(), "item");
        if (t.def().evidence()) {
            OpText.evidence(item, "item");
        }
        return new SectionEdit(
                OpText.appendBullet(t.body(), t.canonical(), item, t.last()),
                t.def().evidence() ? "added 1 evidence item" : "added 1 item to " + t.label(),
                List.of());
    }
}
