package dev.memoryd.daemon.history;

import dev.memoryd.grammar.MemoryDocument;
import java.util.LinkedHashMap;
import java.util.Map;

/** A memory file's H2 sections' bodies by anchor, as {@code read} with {@code section} answers each. */
public final class SectionBodies {
    private SectionBodies() {}

    /** Anchor to canonical body, in file order. */
    public static Map<String, String> of(String text) {
        MemoryDocument doc = MemoryDocument.parse(text);
        Map<String, String> out = new LinkedHashMap<>();
        for (MemoryDocument.Section s : doc.sections()) {
            if (s.level() == 2) {
                out.putIfAbsent(s.anchor(), doc.canonicalBody(s));
            }
        }
        return out;
    }
}
