package dev.memoryd.grammar;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * The most recent parses of memory files, by text. Documents are immutable, and one write parses
 * the same text several times (apply, Change Log, lint before and after; the next write starts
 * from this one's result), so the most recent parses are kept. A write leaves three or four texts
 * here, so the bound holds the latest of a few dozen files that writers take turns on (at 32, 16
 * writers' files missed). The texts kept are also bounded by their characters ({@link
 * #MAX_CHARS}): 128 versions of a 1 MB file held 128 MB of the heap, and with a batch of writes
 * to it ran the daemon out of memory. The latest text is kept whatever its size.
 *
 * <p>Thread-safe: every access holds the map's lock; the least recently used entry goes first.
 * Looking a text up costs a sample of its characters and, on a match, one comparison of the
 * whole text; it never hashes the whole text.
 */
final class RecentParses {
    /** The most texts kept. */
    static final int MAX_TEXTS = 128;

    /**
     * The most characters of text kept, the latest text aside: 16 Mi, about 16 MB for ASCII text,
     * and with their parses (line offsets, sections) two to three times that for a file of many
     * short sections.
     */
    static final long MAX_CHARS = 16L << 20;

    private static final LinkedHashMap<Text, MemoryDocument> RECENT = new LinkedHashMap<>(256, 0.75f, true);

    /** The characters of the texts in {@link #RECENT}. */
    private static long chars;

    private RecentParses() {}

    /** The document parsed from {@code text}, or null when it is not among the recent ones. */
    static MemoryDocument get(String text) {
        synchronized (RECENT) {
            return RECENT.get(new Text(text));
        }
    }

    static void put(String text, MemoryDocument doc) {
        synchronized (RECENT) {
            if (RECENT.put(new Text(text), doc) == null) {
                chars += text.length();
            }
            Iterator<Text> eldest = RECENT.keySet().iterator();
            while (RECENT.size() > 1 && (RECENT.size() > MAX_TEXTS || chars > MAX_CHARS)) {
                chars -= eldest.next().text.length();
                eldest.remove();
            }
        }
    }

    /** How many texts are kept, and their characters: for tests. */
    static long[] held() {
        synchronized (RECENT) {
            return new long[] {RECENT.size(), chars};
        }
    }

    /**
     * A text as a key, hashed from its length and a sample of its characters: {@link
     * String#hashCode} reads every character of every new text (a 200 KB file's write left a tenth
     * of the writer's time in it). Texts whose samples agree (an edit that keeps the length,
     * between the samples) share a bucket, which the map then orders by {@link #compareTo}: a
     * lookup among n such texts costs log n comparisons instead of n, each stopping at the first
     * character that differs.
     */
    private record Text(String text) implements Comparable<Text> {
        private static final int EDGE = 256;
        private static final int PROBES = 16;

        @Override
        public int hashCode() {
            return sampledHash(text);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Text t && (t.text == text || t.text.equals(text));
        }

        @Override
        public int compareTo(Text o) {
            return text.compareTo(o.text);
        }
    }

    /** Length, the first and last {@value Text#EDGE} chars, and {@value Text#PROBES} chars between. */
    static int sampledHash(String s) {
        int n = s.length();
        int h = n;
        if (n <= 2 * Text.EDGE + Text.PROBES) {
            return 31 * h + s.hashCode();
        }
        for (int i = 0; i < Text.EDGE; i++) {
            h = 31 * h + s.charAt(i);
        }
        for (int i = n - Text.EDGE; i < n; i++) {
            h = 31 * h + s.charAt(i);
        }
        int step = (n - 2 * Text.EDGE) / (Text.PROBES + 1);
        for (int k = 1; k <= Text.PROBES; k++) {
            h = 31 * h + s.charAt(Text.EDGE + k * step);
        }
        return h;
    }
}
