package dev.memoryd.grammar;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An Extensions → Core promotion applied to one file's text (file grammar §13): the H3
 * subsection of Extensions with the promoted heading becomes an H2 section of its own, with its
 * anchor, at its place in the grammar's order; a file without that subsection gets the section
 * empty. Pure: the same text always gives the same result, everything else kept byte for byte.
 */
public final class Promotion {
    private Promotion() {}

    /** The headings of the H3 subsections of a file's Extensions section, in order. */
    public static List<String> extensionHeadings(String text) {
        MemoryDocument doc = MemoryDocument.parse(text);
        List<String> out = new ArrayList<>();
        extensions(doc)
                .ifPresent(
                        x -> doc.subsections(x).forEach(s -> out.add(s.heading().strip())));
        return out;
    }

    private static Optional<MemoryDocument.Section> extensions(MemoryDocument doc) {
        return doc.h2Sections().stream()
                .filter(s -> "extensions".equals(s.anchor()) || "Extensions".equals(s.heading()))
                .findFirst();
    }

    /**
     * The text with {@code promoted} (a section of {@code sections}, the file type's sections in
     * order) moved out of Extensions into its own H2 section, or added empty; the text as it is
     * when it already has that H2.
     */
    public static String migrate(String text, List<SectionDef> sections, SectionDef promoted) {
        MemoryDocument doc = MemoryDocument.parse(text);
        if (!doc.find(promoted).isEmpty()) {
            return text;
        }
        int rank = sections.indexOf(promoted);
        int at = -1;
        for (MemoryDocument.Section s : doc.h2Sections()) {
            int r = indexOf(sections, s);
            if (r > rank) {
                at = s.start();
                break;
            }
        }
        MemoryDocument.Section moved = extensions(doc)
                .flatMap(x -> doc.subsections(x).stream()
                        .filter(s -> s.heading().strip().equals(promoted.name()))
                        .findFirst())
                .orElse(null);
        String body = moved == null ? "" : MemoryDocument.canonicalize(moved.body(text));
        String section = "## " + promoted.name() + "\n<!-- @anchor: " + promoted.anchor() + " v1 -->\n\n"
                + (body.isEmpty() ? "" : body + "\n");
        String out = text;
        if (moved != null) {
            if (at >= moved.end()) {
                at -= moved.end() - moved.start();
            }
            out = MemoryDocument.splice(out, moved.start(), moved.end(), "");
        }
        if (at < 0) {
            String sep = out.isEmpty() || out.endsWith("\n\n") ? "" : out.endsWith("\n") ? "\n" : "\n\n";
            out = out + sep + section;
        } else {
            out = MemoryDocument.splice(out, at, at, section);
        }
        return out;
    }

    private static int indexOf(List<SectionDef> sections, MemoryDocument.Section s) {
        for (int i = 0; i < sections.size(); i++) {
            SectionDef d = sections.get(i);
            if (d.anchor().equals(s.anchor()) || d.name().equals(s.heading())) {
                return i;
            }
        }
        return -1;
    }
}
