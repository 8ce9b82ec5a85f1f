package dev.memoryd.grammar.slip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded random messages. A failure names the seed; rerun one seed with
 * {@code -Dslip.seed=<seed>}.
 */
class SlipPropertyTest {

    private static final int RUNS = 1500;
    private static final ObjectMapper JSON = new ObjectMapper();

    private interface Property {
        void check(Random rnd) throws Exception;
    }

    private static void forAll(Property p) {
        long base = Long.getLong("slip.seed", 20261121L);
        int runs = Long.getLong("slip.seed") != null ? 1 : RUNS;
        for (int i = 0; i < runs; i++) {
            long seed = base + i;
            try {
                p.check(new Random(seed));
            } catch (Exception | AssertionError e) {
                fail("property failed for seed " + seed + " (rerun with -Dslip.seed=" + seed + "): " + e, e);
            }
        }
    }

    @Test
    void decodeOfEncode_isIdentityAndEncodingIsStable() {
        forAll(rnd -> {
            SlipMessage m = SlipTestSupport.randomMessage(rnd);
            String wire = Nslip.encode(m);
            assertEquals(new SlipParse.Ok(m), Nslip.decode(wire), wire);
            assertTrue(wire.lines().count() == 1, wire);
        });
    }

    @Test
    void jsonToMessageToJson_isIdentityAlsoThroughText() {
        forAll(rnd -> {
            SlipMessage m = SlipTestSupport.randomMessage(rnd);
            ObjectNode json = SlipJson.toJson(m);
            assertEquals(new SlipJsonParse.Ok(m), SlipJson.parse(json));
            String text = JSON.writeValueAsString(json);
            JsonNode reread = JSON.readTree(text);
            SlipMessage back = ((SlipJsonParse.Ok) SlipJson.parse(reread)).message();
            assertEquals(m, back);
            assertEquals(reread, SlipJson.toJson(back), text);
            assertEquals(text, JSON.writeValueAsString(SlipJson.toJson(back)));
        });
    }

    @Test
    void shuffledSlots_decodeToTheSameMessageAndReencodeCanonically() {
        forAll(rnd -> {
            SlipMessage m = SlipTestSupport.randomMessage(rnd);
            String canonical = Nslip.encode(m);
            String shuffled = shuffleSlots(canonical, m, rnd);
            SlipParse p = Nslip.decode(shuffled);
            assertEquals(new SlipParse.Ok(m), p, shuffled);
            assertEquals(canonical, Nslip.encode(((SlipParse.Ok) p).message()));
        });
    }

    @Test
    void mutatedInputs_neverThrowAndErrorsPointInsideTheInput() {
        forAll(rnd -> {
            String wire = Nslip.encode(SlipTestSupport.randomMessage(rnd));
            StringBuilder b = new StringBuilder(wire);
            int edits = 1 + rnd.nextInt(3);
            String noise = "@#|\"\\aAfcSdTgktuz0-\n\ud800";
            for (int k = 0; k < edits && b.length() > 0; k++) {
                int at = rnd.nextInt(b.length());
                switch (rnd.nextInt(3)) {
                    case 0 -> b.deleteCharAt(at);
                    case 1 -> b.insert(at, noise.charAt(rnd.nextInt(noise.length())));
                    default -> b.setCharAt(at, noise.charAt(rnd.nextInt(noise.length())));
                }
            }
            String input = b.toString();
            SlipParse p = Nslip.decode(input);
            if (p instanceof SlipParse.Error e) {
                assertTrue(e.position() >= 0 && e.position() <= input.length(), input + " -> " + e);
            } else {
                // Whatever was accepted re-encodes and decodes to the same message.
                SlipMessage got = ((SlipParse.Ok) p).message();
                assertEquals(p, Nslip.decode(Nslip.encode(got)), input);
            }
        });
    }

    /** Rebuilds the wire form with the slot fields in a random order. */
    private static String shuffleSlots(String canonical, SlipMessage m, Random rnd) {
        SlipMessage headerOnly = SlipMessage.of(m.convId(), m.turn(), m.src(), m.dst(), m.act(), m.frame(), Map.of());
        String header = Nslip.encode(headerOnly);
        List<String> fields = new ArrayList<>();
        for (Map.Entry<Slot, Object> e : m.slots().entrySet()) {
            String one = Nslip.encode(
                    SlipMessage.of(0, 0, 0, 0, Act.OBSERVE, FrameType.TASK, Map.of(e.getKey(), e.getValue())));
            fields.add(one.substring("@a0|f0|c0|S0|d0|T0".length(), one.length() - 1));
        }
        Collections.shuffle(fields, rnd);
        String out = header.substring(0, header.length() - 1) + String.join("", fields) + "#";
        assertEquals(canonical.length(), out.length());
        return out;
    }
}
