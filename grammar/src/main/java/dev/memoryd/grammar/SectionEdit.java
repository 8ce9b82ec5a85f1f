package dev.memoryd.grammar;

import java.util.List;

/**
 * One section op's change of its target section's body, as its applier computes it: the new
 * body, the phrase for the day's Change Log rollup, and the Change Log lines of its own.
 */
record SectionEdit(String newBody, String summary, List<String> inline) {
    SectionEdit {
        inline = List.copyOf(inline);
    }

    /**
     * What a section op's applier sees of its target: the section's definition (the parent's for
     * an H3 subsection), its label in messages and the Change Log, the file's text and the section
     * in it, its body canonical, whether it ends the file, whether the op named a section of the
     * grammar (not an H3 subsection), and the declaration's date.
     */
    record Target(
            SectionDef def,
            String label,
            String text,
            MemoryDocument.Section section,
            String canonical,
            boolean last,
            boolean named,
            String date) {
        /** The body as in the file: copied out only for an op that reads it, not for every op on a long section. */
        String body() {
            return section.body(text);
        }
    }
}
