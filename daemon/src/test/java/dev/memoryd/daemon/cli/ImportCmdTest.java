package dev.memoryd.daemon.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.client.TreeJson;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ImportCmdTest {
    /** The size a part is cut by is the size the socket client sends (seeded strings of every kind of character). */
    @Test
    void jsonBytes_isWhatTheSocketClientSends() {
        Random random = new Random(20261128);
        char[] pool = {
            'a', ' ', '"', '\\', '\n', '\t', '\r', '\b', '\f', '\u0001', '\u00e9', '\u8a18', '\ud83c', '\udf3f', '/'
        };
        for (int round = 0; round < 5_000; round++) {
            StringBuilder s = new StringBuilder();
            for (int i = random.nextInt(20); i > 0; i--) {
                s.append(pool[random.nextInt(pool.length)]);
            }
            String sent = SocketClient.escapeLoneSurrogates(TreeJson.write(TextNode.valueOf(s.toString())));
            assertEquals(
                    sent.getBytes(StandardCharsets.UTF_8).length - 2, // the quotes
                    ImportCmd.jsonBytes(s.toString()),
                    () -> "round " + s.chars().mapToObj(Integer::toHexString).toList());
        }
    }
}
