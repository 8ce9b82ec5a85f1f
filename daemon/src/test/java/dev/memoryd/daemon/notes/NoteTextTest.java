package dev.memoryd.daemon.notes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import org.junit.jupiter.api.Test;

/** {@link NoteText}: a note's markdown made fit to sit under its H3, every word kept. */
class NoteTextTest {
    private static String fit(String note) {
        return assertInstanceOf(NoteText.Fit.class, NoteText.nest(note)).text();
    }

    private static String unfit(String note) {
        return assertInstanceOf(NoteText.Unfit.class, NoteText.nest(note)).why();
    }

    @Test
    void aNoteWithoutHeadings_isLeftAsItIs() {
        String note = "Trams before nine.\n\n- a list\n- of two\n\n#hashtag and ###not one either";
        assertEquals(note, fit(note));
    }

    @Test
    void headingsMoveDown_untilTheHighestIsH4_andKeepTheirDistances() {
        assertEquals("#### Title\ntext\n##### Part\n###### Deep", fit("# Title\ntext\n## Part\n### Deep"));
        assertEquals("#### Costs\nLow.", fit("### Costs\nLow."));
        assertEquals("#### Four\n##### Five", fit("#### Four\n##### Five")); // already below H3
        assertEquals("   #### Indented ##", fit("   # Indented ##")); // indent and closing sequence kept
    }

    @Test
    void headingsInsideACodeBlock_areCode_andNotMoved() {
        String note = "## Build\n```sh\n# a comment, not a heading\n```";
        assertEquals("#### Build\n```sh\n# a comment, not a heading\n```", fit(note));
    }

    @Test
    void frontmatter_becomesAYamlCodeBlock_soNoRendererShowsItAsARuleAndAHeading() {
        assertEquals(
                "```yaml\ntags: [travel, food]\ncreated: 2024-05-01\n```\n#### Lisbon\n\nTrams.",
                fit("---\ntags: [travel, food]\ncreated: 2024-05-01\n---\n# Lisbon\n\nTrams."));
        assertEquals("```yaml\ntitle: x\n```\nbody", fit("---\ntitle: x\n...\nbody")); // YAML's own end marker
        // a code fence inside the YAML: the block's fence is longer than it
        assertEquals("````yaml\nsnippet: |\n  ```\n````", fit("---\nsnippet: |\n  ```\n---"));
    }

    @Test
    void aRuleThatOpensNoFrontmatter_staysARule() {
        assertEquals("---\nnot closed", fit("---\nnot closed"));
        assertEquals("text\n\n---\n\nmore", fit("text\n\n---\n\nmore"));
    }

    @Test
    void underlinedHeadings_becomeAtxHeadings_nestedLikeTheOthers() {
        assertEquals(
                "#### Setext title\n\nBody.\n\n##### Two lines of it\nmore",
                fit("Setext title\n============\n\nBody.\n\nTwo lines\n  of it\n---\nmore"));
    }

    @Test
    void headingsSpanningMoreThanThreeLevels_areRefused_namingTheNotesOwnLines() {
        assertEquals(
                "its headings run from H1 (line 4) to H6 (line 6): nested under the note's H3 heading they would go"
                        + " past H6; a note may use three levels of headings",
                unfit("Two\nlines\n---\n# One\n\n###### Six"));
    }
}
