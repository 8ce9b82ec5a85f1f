package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The line scan of section headings must agree with flexmark wherever it answers at all, and
 * must answer for the files memoryd itself writes (or it buys nothing).
 */
class HeadingScanTest {
    private static List<Path> sampleFiles() throws Exception {
        List<Path> out = new ArrayList<>();
        for (String dir : new String[] {"templates", "users", "golden"}) {
            Path d = Path.of(resource(dir));
            try (Stream<Path> s = Files.walk(d)) {
                s.filter(f -> f.toString().endsWith(".md")).sorted().forEach(out::add);
            }
        }
        return out;
    }

    private static java.net.URI resource(String name) throws URISyntaxException {
        return HeadingScanTest.class.getClassLoader().getResource(name).toURI();
    }

    @Test
    void memorydsOwnFiles_takeTheScan_andAgreeWithFlexmark() throws Exception {
        List<Path> files = sampleFiles();
        assertEquals(true, files.size() > 40, "too few samples: " + files.size());
        for (Path f : files) {
            String text = Files.readString(f);
            List<HeadingScan.RawHeading> scan = HeadingScan.scanHeadings(text);
            assertNotNull(scan, "the scan gave up on " + f);
            assertEquals(HeadingScan.flexmarkHeadings(text), scan, f.toString());
        }
    }

    private static final String[] TRICKY = {
        "## Role",
        "### Sub",
        "# Title",
        "#### Deep",
        "####### seven",
        "#tag",
        "## ",
        "##",
        "## Role ##",
        "## *Role*",
        "   ## Indented",
        "    ## Code",
        "\t## Tab",
        "```",
        "~~~",
        "```java",
        "<div>",
        "</div>",
        "<!-- @anchor: role v1 -->",
        "<!-- open comment",
        "-->",
        "- item",
        "  - nested",
        "> quote",
        "> ## quoted",
        "---",
        "===",
        "Some paragraph text.",
        "",
        "",
        "[//]: # (anchor: x v1)",
        "1. numbered",
        "* star item",
        "## Evidence (curated)",
        "text with # inside",
        "\\## escaped",
        "## Role\r",
        "- ## in list",
        "<br>",
    };

    @Test
    void randomDocuments_scanNeverDisagreesWithFlexmark() {
        Random rnd = new Random(Long.getLong("heading.seed", 7));
        int scanned = 0;
        for (int doc = 0; doc < 3000; doc++) {
            StringBuilder sb = new StringBuilder();
            int lines = 1 + rnd.nextInt(25);
            for (int i = 0; i < lines; i++) {
                sb.append(TRICKY[rnd.nextInt(TRICKY.length)]).append('\n');
            }
            String text = sb.toString();
            List<HeadingScan.RawHeading> scan = HeadingScan.scanHeadings(text);
            if (scan != null) {
                scanned++;
                assertEquals(HeadingScan.flexmarkHeadings(text), scan, "document " + doc + ":\n" + text);
            }
        }
        assertEquals(true, scanned > 100, "the scan answered too rarely to be tested: " + scanned);
    }

    @Test
    void fencesAndHtmlBlocks_areLeftToFlexmark() {
        assertNull(HeadingScan.scanHeadings("## A\n```\n## not a heading\n```\n"));
        assertNull(HeadingScan.scanHeadings("<div>\n## swallowed\n</div>\n"));
        assertNull(HeadingScan.scanHeadings("   ## indented\n"));
    }
}
