package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryDocumentTest {

    private static final String DOC =
            "---\nslice:\n  v: \"1\"\n---\n# Title\n\n## A\n<!-- @anchor: a v1 -->\n\nbody a\n\n"
                    + "```\n## Not a section\n```\n\n### Sub\n\nsub body\n\n## B\n[//]: # (anchor: b v1)\n- x\n## C\ntail";

    @Test
    void parse_findsSectionsWithOffsetsAndAnchors() {
        MemoryDocument d = MemoryDocument.parse(DOC);
        assertEquals("Title", d.title().orElseThrow());
        assertNotNull(d.frontmatter());
        assertEquals("1", d.frontmatter().path("slice").path("v").asText());
        List<MemoryDocument.Section> s = d.sections();
        assertEquals(
                List.of("A", "Sub", "B", "C"),
                s.stream().map(MemoryDocument.Section::heading).toList());
        MemoryDocument.Section a = s.get(0);
        assertEquals("a", a.anchor());
        assertEquals(DOC.indexOf("## A"), a.start());
        assertEquals(DOC.indexOf("\nbody a"), a.bodyStart());
        assertEquals(DOC.indexOf("## B"), a.end());
        assertEquals(7, a.line());
        assertEquals(3, s.get(1).level());
        assertEquals(DOC.indexOf("## B"), s.get(1).end());
        assertEquals("b", s.get(2).anchor());
        assertNull(s.get(3).anchor());
        assertEquals(DOC.indexOf("\ntail") + 1, s.get(3).bodyStart());
        assertEquals("tail", s.get(3).body(DOC));
    }

    @Test
    void canonicalBody_stripsOuterBlankLinesNormalizesCrLfKeepsTrailingSpaces() {
        assertEquals("a  \n\nb\n", MemoryDocument.canonicalize("\r\n  \r\na  \r\n\r\nb\r\n\r\n"));
        assertEquals("", MemoryDocument.canonicalize("\n \n\t\n"));
        assertEquals("x\n", MemoryDocument.canonicalize("x"));
    }

    @Test
    void brokenYaml_givesNullFrontmatterAndNoException() {
        MemoryDocument d = MemoryDocument.parse("---\nslice: [\n---\n# T\n");
        assertNull(d.frontmatter());
        assertNotNull(d.frontmatterError());
        assertEquals("T", d.title().orElseThrow());
    }

    @Test
    void garbage_neverThrows() {
        for (String s : List.of("", "---", "---\n", "#", "##", "## \n<!-- @anchor: v1 -->", "\r\n\r\n", "---\n---\n")) {
            MemoryDocument.parse(s);
        }
    }

    @Test
    void spliceOfUnchangedBody_isIdentity() {
        MemoryDocument d = MemoryDocument.parse(DOC);
        for (MemoryDocument.Section s : d.sections()) {
            assertEquals(DOC, d.spliceBody(s, s.body(DOC)));
        }
        assertTrue(d.frontmatterSpan().isPresent());
    }

    @Test
    void crlfFile_keepsOffsetsIntoOriginalText() {
        String crlf = DOC.replace("\n", "\r\n");
        MemoryDocument d = MemoryDocument.parse(crlf);
        MemoryDocument.Section a = d.sections().get(0);
        assertEquals(crlf.indexOf("## A"), a.start());
        assertEquals("a", a.anchor());
        assertEquals("body a\n\n```\n## Not a section\n```\n\n### Sub\n\nsub body\n", d.canonicalBody(a));
    }
}
