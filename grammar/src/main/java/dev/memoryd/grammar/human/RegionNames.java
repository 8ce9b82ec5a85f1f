package dev.memoryd.grammar.human;

import dev.memoryd.grammar.MemoryDocument;
import java.util.Optional;

/**
 * Turns the name a user gives a section into its region key ({@link HumanEdits#regions}): the
 * heading as written ({@code Current Focus}, what {@code read} and {@code write} accept), or a
 * region key itself (an anchor slug such as {@code current-focus}, {@code #Heading} for a section
 * without an anchor, {@value HumanEdits#HEAD}, {@value SectionMerge#WHOLE_FILE}). Pure.
 */
public final class RegionNames {
    private RegionNames() {}

    /**
     * The region key {@code name} denotes in the first of {@code texts} (null entries skipped)
     * that has such a region, a key matching before a heading; empty when none has one.
     */
    public static Optional<String> key(String name, String... texts) {
        if (name.equals(HumanEdits.HEAD) || name.equals(SectionMerge.WHOLE_FILE)) {
            return Optional.of(name);
        }
        for (String text : texts) {
            if (text != null
                    && HumanEdits.regions(text).stream().anyMatch(r -> r.key().equals(name))) {
                return Optional.of(name);
            }
        }
        for (String text : texts) {
            if (text == null) {
                continue;
            }
            for (MemoryDocument.Section s : MemoryDocument.parse(text).h2Sections()) {
                if (s.heading().equals(name)) {
                    // Regions start where their H2 does: that gives the key, repeats' ~n included.
                    return HumanEdits.regions(text).stream()
                            .filter(r -> r.start() == s.start())
                            .map(HumanEdits.Region::key)
                            .findFirst();
                }
            }
        }
        return Optional.empty();
    }
}
