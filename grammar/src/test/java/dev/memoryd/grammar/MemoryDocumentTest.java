package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
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

    /** A plain memory file: frontmatter, title, anchored sections, list items; the line scan reads it. */
    private static final String PLAIN = "---\nslice:\n  v: \"1\"\n  meta:\n    last_updated: 2026-01-01T00:00:00Z\n"
            + "---\n# Title\n\n## A\n<!-- @anchor: a v1 -->\n\nbody a\nmore a\n\n### Sub\n\nsub body\n\n"
            + "## B\n<!-- @anchor: b v1 -->\n\n- x\n- y\n\n## Change Log\n<!-- @anchor: change-log v1 -->\n\n"
            + "- 2026-01-01: created part\n";

    @Test
    void spliceOfALongListBody_givesWhatAParseGives_whereverTheBodiesFirstDiffer() {
        StringBuilder items = new StringBuilder("\n");
        for (int i = 0; i < 600; i++) {
            items.append("- item number ").append(i).append(" of a long list\n");
        }
        String body = items + "\n";
        String text = PLAIN.replace("\n\n- x\n- y\n\n", body);
        MemoryDocument d = MemoryDocument.parseUncached(text);
        MemoryDocument.Section b = d.sections().stream()
                .filter(s -> "B".equals(s.heading()))
                .findFirst()
                .orElseThrow();
        java.util.Random r = new java.util.Random(3);
        for (int i = 0; i < 200; i++) {
            String old = b.body(text);
            int at = i % 4 == 0 ? old.length() - 1 : r.nextInt(old.length());
            String piece = i % 3 == 0 ? "- a new item\n" : i % 3 == 1 ? "x" : "\n## Heading\n";
            String newBody = old.substring(0, at) + piece + old.substring(at);
            MemoryDocument spliced = d.splice(b.bodyStart(), b.end(), newBody);
            MemoryDocument parsed = MemoryDocument.parseUncached(spliced.text());
            assertEquals(parsed.sections(), spliced.sections(), "at " + at);
            for (int off = 0; off <= spliced.text().length(); off += 97) {
                assertEquals(parsed.lineOf(off), spliced.lineOf(off), "at " + at + ", line of " + off);
            }
        }
    }

    @Test
    void splice_givesTheDocumentAParseOfTheSplicedTextGives() {
        String[] pieces = {
            "",
            "\n",
            "word",
            "- item\n",
            "\n## New\n",
            "## New\n<!-- @anchor: new v1 -->\n",
            "<!-- @anchor: z v1 -->\n",
            "```\n",
            "<div>\n",
            "\t",
            "# T\n",
            "---\n",
            "last_updated: x",
            "### Deeper\n",
            "\r\n",
            "text\n\n"
        };
        java.util.Random r = new java.util.Random(7);
        for (String base : List.of(PLAIN, PLAIN.replace("\n", "\r\n"))) {
            for (int n = 0; n < 2_000; n++) {
                int start = r.nextInt(base.length() + 1);
                int end = Math.min(base.length(), start + (r.nextBoolean() ? 0 : r.nextInt(12)));
                String with =
                        pieces[r.nextInt(pieces.length)] + (r.nextBoolean() ? pieces[r.nextInt(pieces.length)] : "");
                MemoryDocument spliced = MemoryDocument.parseUncached(base).splice(start, end, with);
                MemoryDocument parsed = MemoryDocument.parseUncached(MemoryDocument.splice(base, start, end, with));
                String what = "splice(" + start + ", " + end + ", " + with.replace("\n", "\\n") + ")";
                assertSameDocument(parsed, spliced, what);
            }
        }
    }

    @Test
    void splicesOfTheLineAfterAHeading_whereItsAnchorIs_giveWhatAParseGives() {
        String[] lines = {
            "",
            "<!-- @anchor: other v1 -->\n",
            "[//]: # (anchor: other v1)\n",
            "<!-- @anchor: other v2 -->\n",
            "<!-- not an anchor -->\n",
            "plain words\n",
            "\n",
            "<!-- @anchor: other v1 -->\n<!-- @anchor: second v1 -->\n",
            "## Heading now\n",
            "<!-- @anchor: a v1 -->\n\n"
        };
        for (String base : List.of(PLAIN, PLAIN.replace("\n", "\r\n"))) {
            MemoryDocument doc = MemoryDocument.parseUncached(base);
            for (MemoryDocument.Section s : doc.sections()) {
                int lineStart = base.indexOf('\n', s.start()) + 1; // the line after the heading
                int lineEnd = base.indexOf('\n', lineStart) + 1;
                for (String with : lines) {
                    String w = base.contains("\r\n") ? with.replace("\n", "\r\n") : with;
                    for (int[] span : new int[][] {{lineStart, lineEnd}, {lineStart, lineStart}, {lineEnd, lineEnd}}) {
                        MemoryDocument spliced = doc.splice(span[0], span[1], w);
                        MemoryDocument parsed =
                                MemoryDocument.parseUncached(MemoryDocument.splice(base, span[0], span[1], w));
                        assertSameDocument(
                                parsed,
                                spliced,
                                "after " + s.heading() + ": splice(" + span[0] + ", " + span[1] + ", "
                                        + w.replace("\n", "\\n").replace("\r", "\\r") + ")");
                    }
                }
            }
        }
    }

    @Test
    void sameLengthSplicesOfTheFrontmatter_giveWhatAParseGives_andTheSameTextGivesTheSameDocument() {
        String alphabet = "0123456789-:TZ \"'ab\n-\r";
        java.util.Random r = new java.util.Random(20261128);
        for (String base : List.of(PLAIN, PLAIN.replace("\n", "\r\n"))) {
            MemoryDocument doc = MemoryDocument.parseUncached(base);
            int fmEnd = doc.frontmatterSpan().orElseThrow().end();
            assertSame(doc, doc.splice(10, 20, base.substring(10, 20)), "the same text");
            for (int n = 0; n < 3_000; n++) {
                int start = r.nextInt(fmEnd + 1);
                int end = Math.min(fmEnd, start + r.nextInt(13));
                StringBuilder with = new StringBuilder();
                for (int i = start; i < end; i++) {
                    with.append(r.nextInt(3) == 0 ? base.charAt(i) : alphabet.charAt(r.nextInt(alphabet.length())));
                }
                MemoryDocument spliced = doc.splice(start, end, with.toString());
                MemoryDocument parsed =
                        MemoryDocument.parseUncached(MemoryDocument.splice(base, start, end, with.toString()));
                String what =
                        "splice(" + start + ", " + end + ", " + with.toString().replace("\n", "\\n") + ")";
                assertSameDocument(parsed, spliced, what);
                assertEquals(
                        parsed.frontmatter() == null
                                ? null
                                : parsed.frontmatter().toString(),
                        spliced.frontmatter() == null
                                ? null
                                : spliced.frontmatter().toString(),
                        what);
                for (int at = 0; at < base.length(); at += 7) {
                    assertEquals(parsed.lineOf(at), spliced.lineOf(at), what + " line of " + at);
                }
            }
        }
    }

    /** What a splice gave against what a parse of the spliced text gives. */
    private static void assertSameDocument(MemoryDocument parsed, MemoryDocument spliced, String what) {
        assertEquals(parsed.text(), spliced.text(), what);
        assertEquals(parsed.sections(), spliced.sections(), what);
        assertEquals(parsed.title(), spliced.title(), what);
        assertEquals(parsed.titleLine(), spliced.titleLine(), what);
        assertEquals(parsed.frontmatterSpan(), spliced.frontmatterSpan(), what);
        assertEquals(parsed.lineCount(), spliced.lineCount(), what);
    }

    /** The rule as first written: split into lines, drop blank ones at both ends, join with newlines. */
    private static String canonicalBySplitting(String body) {
        String[] lines = body.replace("\r\n", "\n").split("\n", -1);
        int first = 0;
        int last = lines.length - 1;
        while (first <= last && lines[first].isBlank()) {
            first++;
        }
        while (last >= first && lines[last].isBlank()) {
            last--;
        }
        StringBuilder b = new StringBuilder();
        for (int i = first; i <= last; i++) {
            b.append(lines[i]).append('\n');
        }
        return b.toString();
    }

    @Test
    void canonicalize_cutsWhatSplittingAndJoiningTheLinesGave() {
        String alphabet = "a \n\r\t\u000b\f\u2003\u00a0é";
        java.util.Random r = new java.util.Random(20261126);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder b = new StringBuilder();
            int len = r.nextInt(24);
            for (int k = 0; k < len; k++) {
                b.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
            String body = b.toString();
            assertEquals(
                    canonicalBySplitting(body), MemoryDocument.canonicalize(body), () -> body.replace("\n", "\\n"));
        }
    }

    @Test
    void chainedSplicesOfWholeSectionBodies_giveWhatAParseOfEachTextGives() {
        String[] pieces = {
            "- item\n",
            "\n### Note\n\nsome words\n",
            "### Tight\ntext\n",
            "\n## New\n<!-- @anchor: new v1 -->\n",
            "<!-- @anchor: z v1 -->\n",
            "no newline",
            "\n",
            "```\n",
            "### \n",
            "text\n\n### Deeper\n<!-- @anchor: deeper v1 -->\nbody\n"
        };
        java.util.Random r = new java.util.Random(20261126);
        for (String base : List.of(PLAIN, PLAIN.replace("\n", "\r\n"))) {
            for (int run = 0; run < 40; run++) {
                MemoryDocument d = MemoryDocument.parseUncached(base);
                for (int step = 0; step < 30; step++) {
                    List<MemoryDocument.Section> secs = d.sections();
                    MemoryDocument.Section s = secs.get(r.nextInt(secs.size()));
                    String body = s.body(d.text());
                    String piece = pieces[r.nextInt(pieces.length)];
                    int at = r.nextInt(3) == 0 ? r.nextInt(body.length() + 1) : body.length();
                    String newBody = body.substring(0, at) + piece + body.substring(at);
                    MemoryDocument spliced = d.splice(s.bodyStart(), s.end(), newBody);
                    MemoryDocument parsed = MemoryDocument.parseUncached(spliced.text());
                    String what =
                            "step " + step + ": " + piece.replace("\n", "\\n") + " at " + at + " of " + s.heading();
                    assertEquals(parsed.sections(), spliced.sections(), what);
                    assertEquals(parsed.title(), spliced.title(), what);
                    assertEquals(parsed.lineCount(), spliced.lineCount(), what);
                    for (int off = 0; off <= spliced.text().length(); off += 7) {
                        assertEquals(parsed.lineOf(off), spliced.lineOf(off), what + ", line of " + off);
                    }
                    d = spliced;
                }
            }
        }
    }

    @Test
    void spliceOfASectionBody_keepsTheOtherSectionsShifted() {
        MemoryDocument d = MemoryDocument.parseUncached(PLAIN);
        MemoryDocument.Section b = d.sections().get(2);
        MemoryDocument after = d.splice(b.bodyStart(), b.end(), "\n- x\n- y\n- z\n\n");
        assertEquals(
                List.of("A", "Sub", "B", "Change Log"),
                after.sections().stream().map(MemoryDocument.Section::heading).toList());
        assertEquals(d.sections().get(3).start() + 4, after.sections().get(3).start());
        assertEquals("\n- x\n- y\n- z\n\n", after.sections().get(2).body(after.text()));
    }

    @Test
    void bodyIs_tellsASectionsBodyInPlace_andNothingElse() {
        String text = "# T\n\n## A\n\nalpha\n\n## B\n\nbeta\n";
        MemoryDocument doc = MemoryDocument.parse(text);
        int checked = 0;
        for (MemoryDocument.Section s : doc.sections()) {
            String body = s.body(text);
            assertTrue(s.bodyIs(text, new String(body)), s.heading());
            org.junit.jupiter.api.Assertions.assertFalse(s.bodyIs(text, body + "x"), s.heading());
            org.junit.jupiter.api.Assertions.assertFalse(s.bodyIs(text, body.replace('a', 'o')), s.heading());
            checked++;
        }
        assertEquals(2, checked);
    }
}
