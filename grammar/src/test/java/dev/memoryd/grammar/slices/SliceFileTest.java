package dev.memoryd.grammar.slices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SliceFileTest {

    @Test
    void parse_splitsSliceNamespaceAndKeepsTheBodyByteForByte() {
        String text = "---\nslice:\n  v: \"1\"\n  id: 01JX\n---\r\n\n# Body  \r\ntext";
        SliceFile f = SliceFile.parse(text);
        assertEquals("01JX", f.slice().orElseThrow().get("id").asText());
        assertEquals("\n# Body  \r\ntext", f.body());
        assertEquals(text.indexOf("\n# Body"), f.bodyStart());
    }

    @Test
    void pointerExample_hasAnEmptyBody() {
        SliceFile f = SliceFile.parse(SliceValidatorTest.resource("slices/examples/large-payload.slice"));
        assertEquals("pointer", f.slice().orElseThrow().get("kind").asText());
        assertEquals("", f.body());
    }

    @Test
    void memoryFileFrontmatter_parsesToo() {
        String text = "---\nslice:\n  v: \"1\"\n  meta:\n    user_id: sam\n---\n# Sam\n";
        assertEquals(
                "sam",
                SliceFile.parse(text)
                        .slice()
                        .orElseThrow()
                        .path("meta")
                        .path("user_id")
                        .asText());
    }

    @Test
    void noFrontmatter_meansTheWholeTextIsBodyAndNoSlice() {
        SliceFile f = SliceFile.parse("# only body\n");
        assertFalse(f.hasFrontmatter());
        assertTrue(f.slice().isEmpty());
        assertEquals("# only body\n", f.body());
    }

    @Test
    void brokenInputs_neverThrow() {
        for (String s : List.of("", "---", "---\n", "---\n---\n", "---\nslice: [\n---\n", "---\nslice: 3\n---\nx")) {
            SliceFile f = SliceFile.parse(s);
            assertTrue(f.slice().isEmpty(), s);
        }
        assertTrue(SliceFile.parse("---\nslice: [\n---\n").frontmatterError().isPresent());
    }
}
