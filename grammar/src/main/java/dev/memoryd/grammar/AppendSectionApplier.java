package dev.memoryd.grammar;

import java.util.List;

/**
 * {@code append_section}: one paragraph appended to a narrative section's body (a code block counts as
 * one, blank lines inside its fences and all).
 */
final class AppendSectionApplier {
    private AppendSectionApplier() {}

    static SectionEdit apply(AppendSection a, SectionEdit.Target t) {
        String c = OpText.content(a.content(), "content");
        java.util.BitSet fenced = MarkdownBlocks.fencedLines(c);
        String[] lines = c.split("\n", -1);
        for (int i = 0; i < lines.length - 1; i++) { // the last is the empty one after the final newline
            if (lines[i].isBlank() && !fenced.get(i)) {
                throw new OpRejected(
                        Reason.INVALID_OP,
                        "append_section takes one paragraph; content has blank lines (inside a code fence they"
                                + " are part of the code)");
            }
        }
        String before = t.canonical();
        // OpText.layout of before + "\n" + c, built in one copy: a long section appended to note
        // by note (an import) paid for two of it.
        return new SectionEdit(
                before.isEmpty() ? OpText.layout(c, t.last()) : "\n" + before + "\n" + c + (t.last() ? "" : "\n"),
                "appended to " + t.label(),
                List.of());
    }
}
