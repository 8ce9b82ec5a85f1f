package dev.memoryd.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.grammar.HeadingScan.RawHeading;
import dev.memoryd.grammar.frontmatter.Frontmatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A parsed memory file: frontmatter span and YAML tree, H1 title, and the H2/H3
 * sections with exact char offsets into the original text.
 *
 * <p>Contract: {@link #parse} never throws; problems show up as a missing frontmatter,
 * a null {@link #frontmatter()} with {@link #frontmatterError()}, or missing sections.
 * Structure comes from flexmark, so headings inside fenced code, block quotes or lists
 * are not sections; only top-level ATX headings count. Offsets are char offsets into
 * {@link #text()}, and every edit is a splice by span ({@link #splice}), so all other
 * characters survive exactly. Immutable and thread-safe.
 *
 * <p>Finding the headings is {@link HeadingScan}'s job, line numbers {@link LineIndex}'s, the cache
 * of recent parses {@link RecentParses}'. About 500 lines: the sections are built from
 * the headings here, and {@link #splice(int, int, String)}, which must find what a parse of the
 * spliced text would, shifts those same headings; keeping the two together keeps that agreement
 * in one place.
 */
public final class MemoryDocument {

    /**
     * A section: an ATX heading of level 2 or 3 with its body.
     *
     * @param heading   heading text (without the #'s)
     * @param level     2 or 3
     * @param anchor    slug from the anchor comment on the next line, or null
     * @param start     offset of the heading line
     * @param bodyStart offset after the anchor line (or after the heading line if none)
     * @param end       offset of the next heading of the same or higher rank, or EOF
     * @param line      1-based line number of the heading
     */
    public record Section(String heading, int level, String anchor, int start, int bodyStart, int end, int line) {
        /** The body text ({@code bodyStart..end}) within the document text. */
        public String body(String text) {
            return text.substring(bodyStart, end);
        }

        /** Whether {@link #body} of {@code text} is {@code body}, told in place with no copy made. */
        public boolean bodyIs(String text, String body) {
            return body.length() == end - bodyStart && Regions.equal(text, bodyStart, body, 0, body.length());
        }
    }

    /** A half-open char range. */
    public record Span(int start, int end) {}

    private final String text;
    private final Span frontmatterSpan;
    /** Parsed on first use: most reads of a document never look at its YAML. */
    private volatile Frontmatter parsedFrontmatter;

    private final String title;
    private final int titleLine;
    private final List<Section> sections;
    private final LineIndex lines;
    /** The headings as found (level 1 to 3), kept so that a splice can shift them instead of scanning. */
    private final List<RawHeading> rawHeadings;
    /** The headings came from the line scan, so each line's part in them is the line's alone. */
    private final boolean scanned;

    /** {@link #h2Sections()}, once found. */
    private List<Section> h2s;

    /** Whether the text holds no {@code \r}: 1 yes, -1 no, 0 not looked at yet (a race looks twice). */
    private int crFree;

    private MemoryDocument(String text) {
        this(text, scan(text));
    }

    /** The headings of a text, by the line scan where it can tell, else by flexmark; null: flexmark's. */
    private static Scan scan(String text) {
        int fmEnd = frontmatterEnd(text);
        // Blank the frontmatter (same length, newlines kept) so flexmark offsets stay
        // valid and the YAML is not mistaken for a setext heading or thematic break.
        String md = text;
        if (fmEnd > 0) {
            StringBuilder b = new StringBuilder(text);
            for (int i = 0; i < fmEnd; i++) {
                if (b.charAt(i) != '\n' && b.charAt(i) != '\r') {
                    b.setCharAt(i, ' ');
                }
            }
            md = b.toString();
        }
        List<RawHeading> fast = HeadingScan.scanHeadings(md);
        return fast != null ? new Scan(fast, true) : new Scan(HeadingScan.flexmarkHeadings(md), false);
    }

    /** A text's headings and whether the line scan found them. */
    private record Scan(List<RawHeading> headings, boolean scanned) {}

    private MemoryDocument(String text, Scan scan) {
        this(text, scan, new LineIndex(text));
    }

    private MemoryDocument(String text, Scan scan, LineIndex lines) {
        this.text = text;
        this.lines = lines;
        int fmEnd = frontmatterEnd(text);
        frontmatterSpan = fmEnd > 0 ? new Span(0, fmEnd) : null;
        List<RawHeading> headings = List.copyOf(scan.headings());
        this.rawHeadings = headings;
        this.scanned = scan.scanned();
        // Each loop over every heading is a method of its own: a file of thousands of headings runs
        // each one long enough for the JIT to compile it while it runs, and compiled together with
        // the others (and all they call) one such compilation took the compiler a quarter of a second.
        int[] startOf = new int[headings.size()];
        int[] lineNo = new int[headings.size()];
        lineStarts(headings, lines, startOf, lineNo);
        int[] ends = sectionEnds(headings, startOf, text.length());
        int first = -1;
        for (int i = 0; i < headings.size() && first < 0; i++) {
            if (headings.get(i).level() == 1) {
                first = i;
            }
        }
        this.title = first < 0 ? null : headings.get(first).text();
        this.titleLine = first < 0 ? 0 : lineNo[first];
        this.sections = java.util.Collections.unmodifiableList(sections(text, headings, startOf, lineNo, ends));
    }

    /** Each heading's line start and 1-based line number, walking the lines once (headings come in text order). */
    private static void lineStarts(List<RawHeading> headings, LineIndex lines, int[] startOf, int[] lineNo) {
        for (int i = 0, li = 0; i < headings.size(); i++) {
            li = lines.lineIndexFrom(li, headings.get(i).offset());
            startOf[i] = lines.start(li);
            lineNo[i] = li + 1;
        }
    }

    /**
     * Where each heading's section ends: at the next heading of its level or above, else at the
     * text's end. One pass from the last heading back, keeping the next start of each level.
     */
    private static int[] sectionEnds(List<RawHeading> headings, int[] startOf, int textEnd) {
        int[] ends = new int[headings.size()];
        int[] nextAtOrAbove = new int[8]; // by level 1..6: the next start of a heading of that level or above
        java.util.Arrays.fill(nextAtOrAbove, textEnd);
        for (int i = headings.size() - 1; i >= 0; i--) {
            int level = Math.max(1, Math.min(6, headings.get(i).level()));
            ends[i] = nextAtOrAbove[level];
            for (int l = level; l < nextAtOrAbove.length; l++) {
                nextAtOrAbove[l] = startOf[i];
            }
        }
        return ends;
    }

    /** The H2 and H3 sections (every heading but H1s), in text order. */
    private static List<Section> sections(
            String text, List<RawHeading> headings, int[] startOf, int[] lineNo, int[] ends) {
        List<Section> secs = new ArrayList<>(headings.size());
        for (int i = 0; i < headings.size(); i++) {
            RawHeading h = headings.get(i);
            if (h.level() != 1) {
                secs.add(section(text, h, startOf[i], lineNo[i], ends[i]));
            }
        }
        return secs;
    }

    /** The section of heading {@code h}, whose line starts at {@code start}: its anchor, if the next line names one. */
    private static Section section(String text, RawHeading h, int start, int line, int end) {
        int headingEnd = lineEnd(text, start);
        String anchor = null;
        int bodyStart = headingEnd;
        if (headingEnd < text.length()) {
            int nextEnd = lineEnd(text, headingEnd);
            char lead = firstNonSpace(text, headingEnd, nextEnd);
            if (lead == '<' || lead == '[') { // what both anchor forms start with: most lines are neither
                anchor = AnchorLine.anchorOf(text, headingEnd, nextEnd);
                if (anchor != null) {
                    bodyStart = nextEnd;
                }
            }
        }
        return new Section(h.text(), h.level(), anchor, start, bodyStart, end, line);
    }

    /** The first character in {@code [from, to)} that is not regex {@code \\s}, or 0 when there is none. */
    private static char firstNonSpace(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != 0x0B && c != '\f' && c != '\r') {
                return c;
            }
        }
        return 0;
    }

    /**
     * Parses without the cache of recent parses: for texts that are each parsed once (replay),
     * where a lookup would only cost a hash of the whole text.
     */
    public static MemoryDocument parseUncached(String text) {
        return new MemoryDocument(text == null ? "" : text);
    }

    /** Parses a memory file. Never throws. */
    public static MemoryDocument parse(String text) {
        String t = text == null ? "" : text;
        MemoryDocument d = RecentParses.get(t);
        if (d != null) {
            return d;
        }
        d = new MemoryDocument(t);
        RecentParses.put(t, d);
        return d;
    }

    /**
     * Keeps {@code doc} among the recent parses, for the next {@link #parse} of its text (the next
     * write to the file, the derived indexes reading it).
     */
    public static void remember(MemoryDocument doc) {
        RecentParses.put(doc.text, doc);
    }

    /**
     * End offset (after the closing fence line) of a frontmatter block that opens on the
     * first line with {@code ---}, or -1 if the text has no complete frontmatter.
     */
    static int frontmatterEnd(String text) {
        return Frontmatter.fenceEnd(text);
    }

    private int lineEnd(int offset) {
        return lineEnd(text, offset);
    }

    private static int lineEnd(String text, int offset) {
        int e = text.indexOf('\n', offset);
        return e < 0 ? text.length() : e + 1;
    }

    /** 1-based line number of a char offset. */
    public int lineOf(int offset) {
        return lines.lineOf(offset);
    }

    private int lineStartOf(int offset) {
        return lines.lineStartOf(offset);
    }

    /** Number of lines (a trailing newline does not start a new line). */
    public int lineCount() {
        int n = lines.count();
        return text.endsWith("\n") ? n - 1 : n;
    }

    public String text() {
        return text;
    }

    /** The span of the {@code ---} block including both fences, if present and closed. */
    public Optional<Span> frontmatterSpan() {
        return Optional.ofNullable(frontmatterSpan);
    }

    /** The parsed frontmatter YAML, or null if absent or broken. */
    public JsonNode frontmatter() {
        return parsedFrontmatter().tree();
    }

    /** Why the frontmatter could not be parsed, or null. */
    public String frontmatterError() {
        return parsedFrontmatter().error();
    }

    /** Line of the frontmatter error (1 if unknown). */
    public int frontmatterErrorLine() {
        return parsedFrontmatter().errorLine();
    }

    private Frontmatter parsedFrontmatter() {
        Frontmatter f = parsedFrontmatter;
        if (f == null) {
            f = Frontmatter.parse(text); // racing threads compute the same immutable value
            parsedFrontmatter = f;
        }
        return f;
    }

    /** The first H1's text, if any. */
    public Optional<String> title() {
        return Optional.ofNullable(title);
    }

    /** Line of the first H1, 0 if none. */
    public int titleLine() {
        return titleLine;
    }

    /** All H2 and H3 sections in document order. */
    public List<Section> sections() {
        return sections;
    }

    /** The H2 sections in document order. */
    public List<Section> h2Sections() {
        List<Section> h2 = h2s;
        if (h2 == null) {
            // Found once: a file of many subsections is asked for its H2s several times per write.
            // An immutable list, so a race between threads at worst finds it twice.
            h2 = sections.stream().filter(s -> s.level() == 2).toList();
            h2s = h2;
        }
        return h2;
    }

    /** The H3 sections nested in an H2 section. */
    public List<Section> subsections(Section h2) {
        return sections.stream()
                .filter(s -> s.level() == 3 && s.start() >= h2.bodyStart() && s.start() < h2.end())
                .toList();
    }

    /** The enclosing H2 of an H3 section, if any. */
    public Optional<Section> parentOf(Section h3) {
        return h2Sections().stream()
                .filter(s -> s.start() < h3.start() && h3.start() < s.end())
                .findFirst();
    }

    /** The H2 sections that carry this grammar section (by anchor, else by heading). */
    public List<Section> find(SectionDef def) {
        List<Section> byAnchor = h2Sections().stream()
                .filter(s -> def.anchor().equals(s.anchor()))
                .toList();
        if (!byAnchor.isEmpty()) {
            return byAnchor;
        }
        return h2Sections().stream().filter(s -> def.name().equals(s.heading())).toList();
    }

    /** The canonical body of a section: the text content hashes are computed over. */
    public String canonicalBody(Section s) {
        return canonicalBody(s, null);
    }

    /**
     * {@link #canonicalBody(Section)}, but {@code kept} itself where that is the canonical body
     * (null: none): a section that did not change costs no copy.
     */
    public String canonicalBody(Section s, String kept) {
        if (crFree == 0) {
            crFree = text.indexOf('\r') < 0 ? 1 : -1; // once per text, not once per section asked for
        }
        return SectionText.canonicalize(text, s.bodyStart(), s.end(), crFree > 0, kept);
    }

    /**
     * Canonical text: {@code \r\n} becomes {@code \n}, leading and trailing blank lines are
     * stripped, trailing whitespace within lines is kept, and a non-empty result ends
     * with exactly one {@code \n}.
     */
    public static String canonicalize(String body) {
        return SectionText.canonicalize(body);
    }

    /**
     * The document of this text with {@code [start, end)} replaced by {@code replacement}: the same
     * as parsing the new text, found without scanning it again where that is sure to give the same
     * answer. That is when this text's headings came from the line scan and the change either stays
     * within one line of the frontmatter (its fences kept) or, after it, replaces lines none of which
     * is a heading with lines the scan can read (headings included); the headings are then this
     * document's, shifted, and those of the new lines. Anything else is parsed whole. A write
     * changes one section and the Change Log, so its result is found at the cost of the lines it
     * changed, not of the file.
     */
    public MemoryDocument splice(int start, int end, String replacement) {
        if (!scanned || start < 0 || end < start || end > text.length()) {
            return new MemoryDocument(splice(text, start, end, replacement));
        }
        // Callers replace a whole section body to append to it: only what differs is looked at.
        int span = end - start;
        int prefix = 0;
        if (Regions.equal(text, start, replacement, 0, span)) {
            prefix = span;
        } else {
            int max = Math.min(span, replacement.length());
            // Block by block first, then char by char: an item appended to a long list shares all
            // but the body's last blank line with the old body.
            final int block = 4096;
            while (max - prefix >= block && Regions.equal(text, start + prefix, replacement, prefix, block)) {
                prefix += block;
            }
            while (prefix < max && text.charAt(start + prefix) == replacement.charAt(prefix)) {
                prefix++;
            }
        }
        int suffix = 0;
        int maxSuffix = Math.min(span - prefix, replacement.length() - prefix);
        while (suffix < maxSuffix
                && text.charAt(end - 1 - suffix) == replacement.charAt(replacement.length() - 1 - suffix)) {
            suffix++;
        }
        if (prefix == span && span == replacement.length()) {
            // The same text, told before it is built: a write's last_updated and Change Log line
            // are mostly what they were, and building each cost two copies of the file.
            return this;
        }
        String next = splice(text, start, end, replacement);
        String changed = replacement.substring(prefix, replacement.length() - suffix);
        List<RawHeading> shifted = shiftedHeadings(start + prefix, end - suffix, changed, next);
        if (shifted != null
                && replacement.length() == span
                && frontmatterSpan != null
                && end <= frontmatterSpan.end()) {
            // One frontmatter line changed for as many characters (a new last_updated): every line
            // and heading is where it was.
            return new MemoryDocument(next, this);
        }
        return shifted != null
                ? new MemoryDocument(
                        next, new Scan(shifted, true), lines.spliced(start + prefix, end - suffix, changed))
                : new MemoryDocument(next);
    }

    /** {@code text}, whose lines, headings and sections are {@code sameLayout}'s, at the same offsets. */
    private MemoryDocument(String text, MemoryDocument sameLayout) {
        this.text = text;
        this.lines = sameLayout.lines;
        this.frontmatterSpan = sameLayout.frontmatterSpan;
        this.rawHeadings = sameLayout.rawHeadings;
        this.scanned = sameLayout.scanned;
        this.title = sameLayout.title;
        this.titleLine = sameLayout.titleLine;
        this.sections = sameLayout.sections;
    }

    /** This document's headings moved by the splice, or null when the splice may change them. */
    private List<RawHeading> shiftedHeadings(int start, int end, String replacement, String next) {
        if (frontmatterSpan == null || start < 0 || end < start || end > text.length()) {
            return null;
        }
        int delta = replacement.length() - (end - start);
        int fmEnd = frontmatterSpan.end();
        if (start < fmEnd) {
            // Within the frontmatter, which the scan blanks: one line, not a fence, and the fences where they were.
            int closing = lineStartOf(fmEnd - 1);
            boolean oneLine = text.substring(start, end).indexOf('\n') < 0
                    && text.substring(start, end).indexOf('\r') < 0
                    && replacement.indexOf('\n') < 0
                    && replacement.indexOf('\r') < 0;
            if (!oneLine || lineStartOf(start) == 0 || lineStartOf(start) >= closing) {
                return null;
            }
            if (frontmatterEnd(next) != fmEnd + delta) {
                return null;
            }
        } else {
            // The lines the change touches: an ATX heading is a matter of its own line alone (the
            // whole text passed the line scan: no fences, HTML blocks or indented headings), so
            // the headings of the new text are the old ones outside these lines, shifted, and
            // those the line scan finds in the lines that replace them.
            int from = lineStartOf(start);
            boolean atLineStart = end == 0 || end == text.length() || text.charAt(end - 1) == '\n';
            int to = atLineStart ? end : lineEnd(end);
            int newTo = to + delta;
            if (newTo < next.length() && newTo > 0 && next.charAt(newTo - 1) != '\n') {
                return null; // the new lines run into the line after them
            }
            // The headings are in the order of the text: only one in the touched lines can be
            // changed by them. (A heading's anchor, on the line after it, is read with the sections,
            // from the new text: a change to that line moves no heading.)
            int first = firstHeadingAtOrAfter(from);
            if (first < rawHeadings.size() && rawHeadings.get(first).offset() < to) {
                return null;
            }
            List<RawHeading> inNew = HeadingScan.scanHeadings(next.substring(from, newTo));
            if (inNew == null) {
                return null;
            }
            List<RawHeading> out = new ArrayList<>(rawHeadings.size() + inNew.size());
            out.addAll(rawHeadings.subList(0, first));
            for (RawHeading h : inNew) {
                out.add(new RawHeading(h.offset() + from, h.level(), h.text()));
            }
            for (RawHeading h : rawHeadings.subList(first, rawHeadings.size())) {
                out.add(new RawHeading(h.offset() + delta, h.level(), h.text()));
            }
            return out;
        }
        List<RawHeading> out = new ArrayList<>(rawHeadings.size());
        for (RawHeading h : rawHeadings) {
            out.add(h.offset() < start ? h : new RawHeading(h.offset() + delta, h.level(), h.text()));
        }
        return out;
    }

    /** Index of the first of {@link #rawHeadings} at or after {@code offset} (their count when none is). */
    private int firstHeadingAtOrAfter(int offset) {
        int lo = 0;
        int hi = rawHeadings.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (rawHeadings.get(mid).offset() < offset) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The text with {@code [start, end)} replaced by {@code replacement}. */
    public static String splice(String text, int start, int end, String replacement) {
        return text.substring(0, start) + replacement + text.substring(end);
    }

    /** The text with the section's body replaced; everything else is kept byte for byte. */
    public String spliceBody(Section s, String newBody) {
        return splice(text, s.bodyStart(), s.end(), newBody);
    }
}
