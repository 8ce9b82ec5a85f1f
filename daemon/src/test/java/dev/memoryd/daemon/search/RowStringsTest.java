package dev.memoryd.daemon.search;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.grammar.slices.JsonlBody;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RowStringsTest {
    /** What walking each parsed line's tree gives (the index's reading of JSONL rows). */
    private static String byTrees(String body) {
        StringBuilder out = new StringBuilder();
        for (JsonlBody.Line l : JsonlBody.lines(body)) {
            if (l.node() != null) {
                walk(l.node(), out);
            }
        }
        return out.toString();
    }

    private static void walk(JsonNode n, StringBuilder out) {
        if (n.isTextual()) {
            out.append(n.asText()).append('\n');
        } else if (n.isContainerNode()) {
            n.forEach(c -> walk(c, out));
        }
    }

    private static String streamed(String body) {
        StringBuilder out = new StringBuilder("kept\n");
        RowStrings.append(body, out);
        return out.substring("kept\n".length());
    }

    private static final List<String> LINES = List.of(
            "{\"id\":\"00000000-0000-4000-8000-000000000001\",\"role\":\"user\",\"parents\":[{\"id\":\"p\",\"edge_type\":\"reply\"}]}",
            "{\"b\":\"second\",\"a\":\"first\",\"n\":1.5,\"t\":true,\"z\":null}",
            "{\"text\":\"esc \\\"q\\\" \\\\ \\n \\u00e9 \\ud83d\\ude00\"}",
            "{\"dup\":\"x\",\"dup\":\"y\"}",
            "{\"broken\":\"x\"",
            "{\"a\":\"x\"} {\"b\":\"trailing\"}",
            "\"a bare string\"",
            "[\"in\",[\"nested\",{\"k\":\"deep\"}],3]",
            "42",
            "null",
            "not json at all",
            "{\"a\":\"x\",}",
            "   ",
            "",
            "{\"cr\":\"line with a carriage return\"}\r",
            "]");

    @Test
    void takesTheSameStringsAsTheParsedLines() {
        for (String l : LINES) {
            assertEquals(byTrees(l), streamed(l), l);
            assertEquals(byTrees(l + "\n"), streamed(l + "\n"), l);
        }
        String all = String.join("\n", LINES);
        assertEquals(byTrees(all), streamed(all));
    }

    @Test
    void takesTheSameStringsFromRandomMixesOfLines() {
        Random r = new Random(5);
        for (int k = 0; k < 500; k++) {
            StringBuilder body = new StringBuilder();
            for (int i = r.nextInt(8); i > 0; i--) {
                String l = LINES.get(r.nextInt(LINES.size()));
                // sometimes cut a line short, leaving it malformed
                body.append(r.nextInt(4) == 0 ? l.substring(0, r.nextInt(l.length() + 1)) : l)
                        .append(r.nextBoolean() ? "\n" : "\r\n");
            }
            assertEquals(byTrees(body.toString()), streamed(body.toString()), body.toString());
        }
    }

    @Test
    void aLineThatIsNotJsonAddsNothingAndKeepsWhatCameBefore() {
        StringBuilder out = new StringBuilder("before\n");
        RowStrings.append("{\"a\":\"one\",\"b\":\"two\"", out);
        assertEquals("before\n", out.toString());
    }
}
