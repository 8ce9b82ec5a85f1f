package dev.memoryd.grammar;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The most recent parses of memory files, by text. Documents are immutable, and one write parses
 * the same text several times (apply, Change Log, lint before and after; the next write starts
 * from this one's result), so the most recent parses are kept. A write leaves three or four texts
 * here, so the bound holds the latest of a few dozen files that writers take turns on (at 32, 16
 * writers' files missed).
 *
 * <p>Thread-safe: every access holds the map's lock; the least recently used entry goes first.
 */
final class RecentParses {
    private static final Map<String, MemoryDocument> RECENT = new LinkedHashMap<>(256, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, MemoryDocument> e) {
            return size() > 128;
        }
    };

    private RecentParses() {}

    /** The document parsed from {@code text}, or null when it is not among the recent ones. */
    static MemoryDocument get(String text) {
        synchronized (RECENT) {
            return RECENT.get(text);
        }
    }

    static void put(String text, MemoryDocument doc) {
        synchronized (RECENT) {
            RECENT.put(text, doc);
        }
    }
}
