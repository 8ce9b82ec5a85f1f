package dev.memoryd.daemon.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    /** Characters of one to four bytes in UTF-8, the replacement character among them. */
    private static final String[] UNITS = {"a", "b", " ", "\n", "\u00e9", "\u20ac", "\uFFFD", "\uD83D\uDE00"};

    private static String text(Random rnd, int units) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < units; i++) {
            b.append(UNITS[rnd.nextInt(rnd.nextInt(4) == 0 ? UNITS.length : 3)]);
        }
        return b.toString();
    }

    /** What {@link Utf8#read} says of the file: whether it gives {@code text}. */
    private static boolean readGives(Path f, String text) throws Exception {
        try {
            return Utf8.read(f, "p.md").equals(text);
        } catch (Utf8.NotUtf8 e) {
            return false;
        }
    }

    /**
     * Seeded: texts across the comparison's blocks, each written and then changed by a character,
     * a byte cut off or added, or left alone; holds agrees with a whole read on every one.
     */
    @Test
    void holds_agreesWithAWholeRead_onSeededTextsAndChangedFiles(@TempDir Path dir) throws Exception {
        Random rnd = new Random(20261129);
        Path f = dir.resolve("p.md");
        int held = 0;
        int large = 0;
        for (int i = 0; i < 600; i++) {
            int units = rnd.nextInt(4) == 0 ? rnd.nextInt(12) : rnd.nextInt(rnd.nextBoolean() ? 30_000 : 120_000);
            String text = text(rnd, units);
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            switch (rnd.nextInt(5)) {
                case 0 -> {} // as written
                case 1 -> { // one unit changed
                    if (!text.isEmpty()) {
                        int at = rnd.nextInt(text.length());
                        if (Character.isSurrogate(text.charAt(at))) {
                            at = Math.max(0, at - (Character.isLowSurrogate(text.charAt(at)) ? 1 : 0));
                            bytes = (text.substring(0, at) + "x" + text.substring(at + 2))
                                    .getBytes(StandardCharsets.UTF_8);
                        } else {
                            bytes = (text.substring(0, at)
                                            + (text.charAt(at) == 'a' ? "b" : "a")
                                            + text.substring(at + 1))
                                    .getBytes(StandardCharsets.UTF_8);
                        }
                    }
                }
                case 2 -> bytes = java.util.Arrays.copyOf(bytes, Math.max(0, bytes.length - 1)); // may cut a character
                case 3 -> { // a byte more: ASCII, or one that is never UTF-8
                    bytes = java.util.Arrays.copyOf(bytes, bytes.length + 1);
                    bytes[bytes.length - 1] = rnd.nextBoolean() ? (byte) 'z' : (byte) 0xff;
                }
                default -> { // a byte in the middle that is not UTF-8
                    if (bytes.length > 0) {
                        bytes[rnd.nextInt(bytes.length)] = (byte) 0xc0;
                    }
                }
            }
            Files.write(f, bytes);
            large += bytes.length > Utf8.WHOLE ? 1 : 0;
            boolean expected = readGives(f, text);
            assertEquals(expected, Utf8.holds(f, text), "case " + i + ", " + text.length() + " units");
            held += expected ? 1 : 0;
        }
        assertTrue(held > 100 && held < 500, "both answers were tried: " + held + " held");
        assertTrue(large > 50, "files read a block at a time: " + large);
    }

    @Test
    void holds_isFalseForBytesThatOnlyLenientDecodingTakesForTheText(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("p.md");
        Files.write(f, "caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        assertFalse(Utf8.holds(f, "caf\uFFFD\n")); // what new String(bytes, UTF_8) reads there
        assertFalse(Utf8.holds(f, "caf\u00e9\n"));
        Files.write(f, "caf\u00e9\n".getBytes(StandardCharsets.UTF_8));
        assertTrue(Utf8.holds(f, "caf\u00e9\n"));
    }

    @Test
    void holds_isFalseForAMissingFileADirectoryAndALink(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("p.md");
        assertFalse(Utf8.holds(f, ""));
        Files.createDirectory(f);
        assertFalse(Utf8.holds(f, ""));
        Path target = dir.resolve("target.md");
        Files.writeString(target, "text\n");
        Path link = dir.resolve("link.md");
        Files.createSymbolicLink(link, target);
        assertFalse(Utf8.holds(link, "text\n"));
        assertTrue(Utf8.holds(target, "text\n"));
    }
}
