package dev.memoryd.grammar.slip;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/** Test resources and a seeded generator of valid messages. */
final class SlipTestSupport {

    /** Chars string slots are drawn from: the escapes, the nSLIP delimiters, non-ASCII, a surrogate pair. */
    private static final String[] PIECES = {
        "a",
        "z",
        "_",
        "ok",
        " ",
        "\"",
        "\\",
        "|",
        "#",
        "@",
        "\\\"",
        "\u00e9",
        "\u4e2d",
        "\ud83d\ude00",
        "'",
        "\u00a0",
        "0",
        "t"
    };

    private SlipTestSupport() {}

    static String resource(String name) {
        try (InputStream in = SlipTestSupport.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Non-empty lines of a resource, without line terminators. */
    static List<String> lines(String name) {
        return Arrays.stream(resource(name).split("\n", -1))
                .filter(l -> !l.isEmpty())
                .toList();
    }

    /** Integers biased to the interesting places: 0, digit boundaries, Long.MAX_VALUE. */
    static long randomLong(Random rnd) {
        return switch (rnd.nextInt(6)) {
            case 0 -> rnd.nextInt(62);
            case 1 -> 61 + rnd.nextInt(3);
            case 2 -> Long.MAX_VALUE - rnd.nextInt(3);
            case 3 -> rnd.nextInt(100_000);
            default -> rnd.nextLong() & Long.MAX_VALUE;
        };
    }

    static String randomString(Random rnd) {
        StringBuilder b = new StringBuilder();
        int n = rnd.nextInt(8);
        for (int i = 0; i < n; i++) {
            b.append(PIECES[rnd.nextInt(PIECES.length)]);
        }
        return b.toString();
    }

    static SlipMessage randomMessage(Random rnd) {
        Map<Slot, Object> slots = new TreeMap<>();
        for (Slot s : Slot.values()) {
            if (rnd.nextInt(3) == 0) {
                slots.put(s, s.isString() ? randomString(rnd) : (Object) randomLong(rnd));
            }
        }
        Act act = Act.values()[rnd.nextInt(Act.values().length)];
        FrameType frame = FrameType.values()[rnd.nextInt(FrameType.values().length)];
        return SlipMessage.of(randomLong(rnd), randomLong(rnd), randomLong(rnd), randomLong(rnd), act, frame, slots);
    }
}
