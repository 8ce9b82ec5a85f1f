package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link MarkdownBlocks}: fences, comments and underlined headings as flexmark reads them. */
class MarkdownBlocksTest {
    @Test
    void fencedLines_areTheClosedTopLevelFences_theirFenceLinesIncluded() {
        BitSet fenced = MarkdownBlocks.fencedLines("a\n```\n# x\n\n```\nb\n~~~\nopen");
        assertEquals("{1, 2, 3, 4}", fenced.toString());
    }

    @Test
    void openBlockProblem_namesTheLineThatOpensAFenceOrACommentLeftOpen() {
        assertTrue(MarkdownBlocks.openBlockProblem("a\n\n```sh\nx").startsWith("line 3 opens a code fence (```)"));
        assertTrue(MarkdownBlocks.openBlockProblem("<!-- hidden\nx").startsWith("line 1 opens an HTML comment"));
        assertNull(MarkdownBlocks.openBlockProblem("```\nx\n```\n<!-- c -->"));
    }

    @Test
    void setextHeadings_areTheUnderlinedOnes_notRulesNorUnderlinesInCode() {
        String text = "Title\n=====\n\ntext\n\n---\n\nTwo\nlines\n---\n```\nx\n---\n```\n> quoted\n> ---";
        assertEquals(
                List.of(new MarkdownBlocks.SetextHeading(0, 1, 1), new MarkdownBlocks.SetextHeading(7, 9, 2)),
                MarkdownBlocks.setextHeadings(text));
        assertEquals(List.of(), MarkdownBlocks.setextHeadings("# atx\n\n- item\n- item"));
    }
}
