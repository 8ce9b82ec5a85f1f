package dev.memoryd.grammar;

import com.vladsch.flexmark.ast.FencedCodeBlock;
import com.vladsch.flexmark.ast.Heading;
import com.vladsch.flexmark.ast.HtmlCommentBlock;
import com.vladsch.flexmark.parser.Parser;
import com.vladsch.flexmark.util.ast.Document;
import com.vladsch.flexmark.util.ast.Node;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The fenced code blocks, HTML comments and setext headings of a text that goes into a section, as
 * flexmark (the parser memory files are read with) reads them: which lines lie inside a closed code
 * fence, where a heading or a blank line is text and not structure, whether the text leaves a fence
 * or a comment open, which would swallow whatever a file holds after it, and which lines a reader's
 * renderer shows as an underlined ({@code ===} or {@code ---}) heading.
 *
 * <p>Only blocks at the text's top level count: a fence inside a list item or a block quote ends
 * with its container. A text with no fence marker and no comment opener is not parsed. Stateless;
 * safe from any thread.
 */
public final class MarkdownBlocks {
    private static final Parser PARSER = Parser.builder().build();
    /** A line that may underline a setext heading: what must be in a text before it is parsed for them. */
    private static final Pattern UNDERLINE = Pattern.compile("(?m)^ {0,3}(=+|-+)[ \\t]*$");

    private MarkdownBlocks() {}

    /** Whether {@code text} may hold a fenced code block or an HTML comment (a cheap look first). */
    private static boolean mayHoldBlocks(String text) {
        return text.contains("```") || text.contains("~~~") || text.contains("<!--");
    }

    /**
     * The 0-based numbers of the lines of {@code text} (LF line ends) inside a closed top-level
     * fenced code block, its fence lines included.
     */
    public static BitSet fencedLines(String text) {
        BitSet out = new BitSet();
        if (!mayHoldBlocks(text)) {
            return out;
        }
        Document doc = PARSER.parse(text);
        for (Node n = doc.getFirstChild(); n != null; n = n.getNext()) {
            if (n instanceof FencedCodeBlock f && !f.getClosingMarker().isEmpty()) {
                out.set(doc.getLineNumber(f.getStartOffset()), doc.getLineNumber(f.getEndOffset() - 1) + 1);
            }
        }
        return out;
    }

    /**
     * Why {@code text} (LF line ends) leaves a code fence or an HTML comment open at its end, or
     * null when it closes all it opens.
     */
    public static String openBlockProblem(String text) {
        if (!mayHoldBlocks(text)) {
            return null;
        }
        Document doc = PARSER.parse(text);
        for (Node n = doc.getFirstChild(); n != null; n = n.getNext()) {
            int line = doc.getLineNumber(n.getStartOffset()) + 1;
            if (n instanceof FencedCodeBlock f && f.getClosingMarker().isEmpty()) {
                return "line " + line + " opens a code fence (" + f.getOpeningMarker()
                        + ") that the text does not close: it would make everything after it in the file code";
            }
            if (n instanceof HtmlCommentBlock c && !c.getChars().toString().contains("-->")) {
                return "line " + line + " opens an HTML comment (<!--) that the text does not close: it would hide"
                        + " everything after it in the file";
            }
        }
        return null;
    }

    /**
     * A setext heading: its text on lines {@code first} to {@code underline - 1} (0-based), the
     * {@code ===} (level 1) or {@code ---} (level 2) line under it at {@code underline}.
     */
    public record SetextHeading(int first, int underline, int level) {
        public SetextHeading {
            if (first < 0 || underline <= first || level < 1 || level > 2) {
                throw new IllegalArgumentException("not a setext heading: lines " + first + ".." + underline);
            }
        }
    }

    /** The top-level setext headings of {@code text} (LF line ends), in the order of the text. */
    public static List<SetextHeading> setextHeadings(String text) {
        List<SetextHeading> out = new ArrayList<>();
        if (!UNDERLINE.matcher(text).find()) {
            return out;
        }
        Document doc = PARSER.parse(text);
        for (Node n = doc.getFirstChild(); n != null; n = n.getNext()) {
            if (n instanceof Heading h && h.isSetextHeading()) {
                out.add(new SetextHeading(
                        doc.getLineNumber(h.getStartOffset()),
                        doc.getLineNumber(h.getClosingMarker().getStartOffset()),
                        h.getLevel()));
            }
        }
        return out;
    }
}
