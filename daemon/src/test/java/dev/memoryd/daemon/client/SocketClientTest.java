package dev.memoryd.daemon.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SocketClientTest {
    @Test
    void aLoneSurrogate_isSentAsItsEscape_andEverythingElseAsItIs() {
        assertEquals("{\"a\":\"x \\ud800 y\"}", SocketClient.escapeLoneSurrogates("{\"a\":\"x \ud800 y\"}"));
        assertEquals("\"\\udc00\\ud800\"", SocketClient.escapeLoneSurrogates("\"\udc00\ud800\""), "reversed pair");
        assertEquals("\"\\ud800\"", SocketClient.escapeLoneSurrogates("\"\ud800\""), "at the end");
        assertEquals(
                "\"\\\\\\ud83c\"", SocketClient.escapeLoneSurrogates("\"\\\\\ud83c\""), "after an escaped backslash");
        String fine = "{\"a\":\"Calm \uD83C\uDF3F, caf\u00e9, \u65e5\u672c\"}";
        assertSame(fine, SocketClient.escapeLoneSurrogates(fine), "a text with no lone surrogate is not copied");
    }

    /** Whatever a string holds, the escaped JSON reads back as the same string (seeded). */
    @Test
    void escapedJson_readsBackAsTheSameString() throws Exception {
        Random random = new Random(20261128);
        char[] pool = {'a', '"', '\\', '\n', '\u00e9', '\ud800', '\udbff', '\udc00', '\udfff', '\u65e5'};
        for (int round = 0; round < 2_000; round++) {
            StringBuilder s = new StringBuilder();
            for (int i = random.nextInt(12); i > 0; i--) {
                s.append(pool[random.nextInt(pool.length)]);
            }
            JsonNode tree = JsonNodeFactory.instance.objectNode().put("k", s.toString());
            String sent = SocketClient.escapeLoneSurrogates(TreeJson.write(tree));
            assertEquals(
                    sent,
                    new String(
                            sent.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                            java.nio.charset.StandardCharsets.UTF_8),
                    "UTF-8 carries it whole");
            assertEquals(s.toString(), TreeJson.read(sent).path("k").asText(), "round " + round);
        }
    }
}
