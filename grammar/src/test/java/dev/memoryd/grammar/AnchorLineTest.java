package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@link AnchorLine} reads exactly the lines the anchor grammar's two regular expressions match, and the same ID. */
class AnchorLineTest {
    /** The anchor forms as the grammar states them; the reader by hand must agree with them on every line. */
    private static final Pattern COMMENT = Pattern.compile("^\\s*<!--\\s*@anchor:\\s*(\\S+)\\s+v1\\s*-->\\s*$");

    private static final Pattern LINK = Pattern.compile("^\\s*\\[//]:\\s*#\\s*\\(anchor:\\s*(\\S+)\\s+v1\\)\\s*$");

    private static final String[] PARTS = {
        "<!--",
        "-->",
        "@anchor:",
        "[//]:",
        "#",
        "(anchor:",
        ")",
        "v1",
        "v1)",
        "v2",
        "current-focus",
        "a-->b",
        "x",
        "é",
        "\u00a0",
        " ",
        "  ",
        "\t",
        "\r",
        "\n",
        "\u000b",
        "\f",
        "",
        "-",
        "<",
        "[",
        "anchor:",
        "v"
    };

    @Test
    void readsTheSameAnchorsAsTheGrammarsRegularExpressions() {
        Random rnd = new Random(20261127L);
        int anchors = 0;
        for (int n = 0; n < 200_000; n++) {
            String line = n % 2 == 0 ? nearAnchor(rnd) : randomParts(rnd);
            String expected = oracle(line);
            assertEquals(expected, AnchorLine.anchorOf(line), () -> "line [" + line + "]");
            assertEquals(
                    COMMENT.matcher(line).matches(),
                    AnchorLine.isComment(line, 0, line.length()),
                    () -> "line [" + line + "]");
            if (expected != null) {
                anchors++;
            }
        }
        assertTrue(anchors > 20_000, "the generator made too few anchor lines to tell anything: " + anchors);
    }

    @Test
    void readsOnlyTheRangeItIsGiven() {
        String text = "## Current Focus\n<!-- @anchor: current-focus v1 -->\nbody\n";
        int from = text.indexOf('<');
        int to = text.indexOf('\n', from);
        assertEquals("current-focus", AnchorLine.anchorOf(text, from, to));
        assertNull(AnchorLine.anchorOf(text, from, to - 1));
        assertEquals("focus", AnchorLine.anchorOf(" [//]: # (anchor: focus v1) "));
        assertFalse(AnchorLine.isComment(" [//]: # (anchor: focus v1) ", 0, 28));
        assertNull(AnchorLine.anchorOf("<!-- @anchor: two words v1 -->"));
    }

    private static String oracle(String line) {
        Matcher m = COMMENT.matcher(line);
        if (m.matches()) {
            return m.group(1);
        }
        m = LINK.matcher(line);
        return m.matches() ? m.group(1) : null;
    }

    /** One of the two forms, with each gap and word sometimes changed. */
    private static String nearAnchor(Random rnd) {
        boolean comment = rnd.nextBoolean();
        String[] words = comment
                ? new String[] {"<!--", "@anchor:", id(rnd), "v1", "-->"}
                : new String[] {"[//]:", "#", "(anchor:", id(rnd), "v1)"};
        StringBuilder b = new StringBuilder(gap(rnd, false));
        for (int i = 0; i < words.length; i++) {
            String w = rnd.nextInt(12) == 0 ? PARTS[rnd.nextInt(PARTS.length)] : words[i];
            b.append(w).append(gap(rnd, i == (comment ? 2 : 3) && rnd.nextInt(4) == 0)); // at times no gap after the ID
        }
        if (rnd.nextInt(10) == 0) {
            b.append(PARTS[rnd.nextInt(PARTS.length)]);
        }
        return b.toString();
    }

    private static String id(Random rnd) {
        String[] ids = {"current-focus", "a-->b", "x", "é", "v1", "q\u00a0r", "(x)", "-->", "a)"};
        return ids[rnd.nextInt(ids.length)];
    }

    private static String gap(Random rnd, boolean none) {
        if (none) {
            return "";
        }
        String[] gaps = {"", " ", "  ", "\t", " \r", "\u000b", "\f", "\n", "\u00a0"};
        return gaps[rnd.nextInt(gaps.length)];
    }

    private static String randomParts(Random rnd) {
        StringBuilder b = new StringBuilder();
        int n = rnd.nextInt(9);
        for (int i = 0; i < n; i++) {
            b.append(PARTS[rnd.nextInt(PARTS.length)]);
        }
        return b.toString();
    }
}
