package dev.memoryd.daemon.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8Test {
    @Test
    void decodeOrEmpty_givesTheTextOfUtf8_evenWithAReplacementCharacterInIt() {
        String text = "caf\u00e9 \uFFFD \uD83D\uDE00 end";
        assertEquals(Optional.of(text), Utf8.decodeOrEmpty(text.getBytes(StandardCharsets.UTF_8), "p.md"));
        assertEquals(Optional.of(""), Utf8.decodeOrEmpty(new byte[0], "p.md"));
    }

    @Test
    void decodeOrEmpty_isEmptyForBytesThatAreNotUtf8_whereDecodeNamesTheByte() {
        byte[] latin1 = "caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1);
        assertTrue(Utf8.decodeOrEmpty(latin1, "p.md").isEmpty());
        Utf8.NotUtf8 e = assertThrows(Utf8.NotUtf8.class, () -> Utf8.decode(latin1, "p.md"));
        assertEquals(3, e.offset());
    }

    /** Seeded: random bytes, decoded both ways, agree on which are UTF-8 and on their text. */
    @Test
    void decodeOrEmpty_agreesWithTheStrictDecoder_onRandomBytes() {
        Random rnd = new Random(20261127);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[rnd.nextInt(12)];
            rnd.nextBytes(b);
            Optional<String> strict;
            try {
                strict = Optional.of(Utf8.decode(b, "p.md"));
            } catch (Utf8.NotUtf8 e) {
                strict = Optional.empty();
            }
            assertEquals(strict, Utf8.decodeOrEmpty(b, "p.md"), () -> java.util.Arrays.toString(b));
        }
    }
}
