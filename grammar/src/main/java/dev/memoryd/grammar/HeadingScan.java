package dev.memoryd.grammar;

import com.vladsch.flexmark.ast.Heading;
import com.vladsch.flexmark.parser.Parser;
import com.vladsch.flexmark.util.ast.Document;
import com.vladsch.flexmark.util.ast.Node;
import java.util.ArrayList;
import java.util.List;

/**
 * Finding the top-level ATX headings of level 1 to 3 in a memory file's Markdown (its frontmatter
 * blanked): by flexmark, which is the definition, or by a line scan that gives the same answer
 * where it can tell ({@code HeadingScanTest} checks the two agree).
 *
 * <p>Stateless; safe from any thread (one flexmark parser is shared: they are reusable across
 * threads).
 */
final class HeadingScan {
    // One parser for all documents: flexmark parsers are reusable across threads.
    private static final Parser PARSER = Parser.builder().build();

    private HeadingScan() {}

    /** A top-level ATX heading of level 1 to 3: where it starts, its level and its text. */
    record RawHeading(int offset, int level, String text) {}

    /**
     * The top-level ATX headings of level ≤ 3, as flexmark finds them. Texts made only of plain
     * lines (no code fences, no HTML other than one-line anchor comments, no indented or
     * decorated heading lines) take a line scan that gives the same answer about thirty times
     * faster; anything else goes to flexmark, which stays the definition
     * ({@code MemoryDocumentTest} checks the two agree).
     */
    static List<RawHeading> headings(String md) {
        List<RawHeading> fast = scanHeadings(md);
        return fast != null ? fast : flexmarkHeadings(md);
    }

    static List<RawHeading> flexmarkHeadings(String md) {
        Document doc = PARSER.parse(md);
        List<RawHeading> out = new ArrayList<>();
        for (Node n = doc.getFirstChild(); n != null; n = n.getNext()) {
            if (n instanceof Heading h && h.isAtxHeading() && h.getLevel() <= 3) {
                out.add(new RawHeading(
                        h.getStartOffset(), h.getLevel(), h.getText().toString().trim()));
            }
        }
        return out;
    }

    /** The line scan, or null when a line could mean something a line scan cannot see. */
    static List<RawHeading> scanHeadings(String md) {
        List<RawHeading> out = new ArrayList<>();
        int n = md.length();
        int pos = 0;
        while (pos < n) {
            int eol = md.indexOf('\n', pos);
            int end = eol < 0 ? n : eol;
            int lineEnd = end > pos && md.charAt(end - 1) == '\r' ? end - 1 : end;
            int i = pos;
            while (i < lineEnd && md.charAt(i) == ' ') {
                i++;
            }
            if (i < lineEnd) {
                char c = md.charAt(i);
                int indent = i - pos;
                if (c == '\t' || c == '`' || c == '~' || (c == '#' && indent > 0)) {
                    return null; // tabs, fences, indented headings: flexmark decides
                }
                if (c == '<' && !AnchorLine.isComment(md, pos, lineEnd)) {
                    return null; // an HTML block may swallow the lines after it
                }
                if (c == '#') {
                    int hashes = 0;
                    while (i + hashes < lineEnd && md.charAt(i + hashes) == '#') {
                        hashes++;
                    }
                    if (hashes > 6) {
                        // not a heading: a paragraph line
                    } else if (i + hashes == lineEnd) {
                        return null; // empty heading: leave to flexmark
                    } else if (md.charAt(i + hashes) != ' ') {
                        return null; // "#tag" or "#\t": leave to flexmark
                    } else if (hashes <= 3) {
                        String content = md.substring(i + hashes, lineEnd).trim();
                        if (content.isEmpty() || content.endsWith("#") || !plainHeading(content)) {
                            return null; // closing sequence or inline markup
                        }
                        out.add(new RawHeading(pos, hashes, content));
                    }
                }
            }
            pos = end + 1;
        }
        return out;
    }

    /** Heading text without inline markup (what {@code [^\\`*_\[\]<>&!|]+} matched; a loop is cheaper per heading). */
    private static boolean plainHeading(String content) {
        for (int i = 0; i < content.length(); i++) {
            switch (content.charAt(i)) {
                case '\\', '`', '*', '_', '[', ']', '<', '>', '&', '!', '|':
                    return false;
                default:
                    break;
            }
        }
        return !content.isEmpty();
    }
}
