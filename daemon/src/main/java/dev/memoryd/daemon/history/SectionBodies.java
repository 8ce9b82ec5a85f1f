package dev.memoryd.daemon.history;

import dev.memoryd.grammar.MemoryDocument;
import dev.memoryd.grammar.human.HumanEdits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A memory file's H2 sections as {@code sections.list} and {@code sections.history} name them: each
 * with its body as {@code read} with {@code section} answers it, and the key its events are
 * indexed under. Pure.
 */
public final class SectionBodies {
    private SectionBodies() {}

    /**
     * One H2 section of a file: its heading, its anchor (null when it has none), the key
     * {@link SectionIndex} files its events under and its canonical body.
     *
     * @param key the anchor; for a section without one, the region key a human's edit of it names
     *     ({@code #} and its heading, {@code ~n} on a repeat)
     * @param body as {@code read} answers the section: for an anchor that repeats, the first
     *     section's with it
     */
    public record Listed(String heading, String anchor, String key, String body) {
        public Listed {
            Objects.requireNonNull(heading, "heading");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(body, "body");
        }
    }

    /** Every H2 section of {@code text}, in file order. */
    public static List<Listed> list(String text) {
        MemoryDocument doc = MemoryDocument.parse(text);
        List<MemoryDocument.Section> h2 = doc.h2Sections();
        List<HumanEdits.Region> regions = HumanEdits.regions(text); // the head, then one per H2 section
        Map<String, String> byAnchor = new LinkedHashMap<>();
        for (MemoryDocument.Section s : h2) {
            if (s.anchor() != null) {
                byAnchor.putIfAbsent(s.anchor(), doc.canonicalBody(s));
            }
        }
        List<Listed> out = new ArrayList<>(h2.size());
        for (int i = 0; i < h2.size(); i++) {
            MemoryDocument.Section s = h2.get(i);
            out.add(
                    s.anchor() != null
                            ? new Listed(s.heading(), s.anchor(), s.anchor(), byAnchor.get(s.anchor()))
                            : new Listed(s.heading(), null, regions.get(i + 1).key(), doc.canonicalBody(s)));
        }
        return out;
    }
}
