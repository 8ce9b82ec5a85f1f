package dev.memoryd.jcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CanonicalValueTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String CHARS = "aZ09 \"\\\t\n\u0001\u001f\u007fé✓😀";

    private static String text(Random r) {
        StringBuilder sb = new StringBuilder();
        for (int i = r.nextInt(6); i > 0; i--) {
            int at = r.nextInt(CHARS.length() - 1);
            // keep surrogate pairs whole
            sb.append(Character.isHighSurrogate(CHARS.charAt(at)) ? CHARS.substring(at, at + 2) : CHARS.charAt(at));
        }
        return sb.toString();
    }

    /** A random tree; where {@code wrap}, some subtrees stand as canonical values. */
    private static JsonNode tree(Random r, int depth, boolean wrap, long seed) {
        JsonNode n;
        switch (depth == 0 ? 2 + r.nextInt(4) : r.nextInt(6)) {
            case 0 -> {
                ObjectNode o = NODES.objectNode();
                for (int i = r.nextInt(4); i > 0; i--) {
                    o.set(text(r), tree(r, depth - 1, wrap, seed));
                }
                n = o;
            }
            case 1 -> {
                ArrayNode a = NODES.arrayNode();
                for (int i = r.nextInt(4); i > 0; i--) {
                    a.add(tree(r, depth - 1, wrap, seed));
                }
                n = a;
            }
            case 2 -> n = NODES.textNode(text(r));
            case 3 -> n = NODES.numberNode(r.nextInt(2000) / 8.0 - 100);
            case 4 -> n = NODES.numberNode(r.nextLong() >> r.nextInt(64));
            default -> n = r.nextBoolean() ? NODES.booleanNode(r.nextBoolean()) : NODES.nullNode();
        }
        // The same draws either way, so the plain and the wrapped tree have the same content.
        boolean pick = r.nextInt(3) == 0;
        return wrap && pick ? CanonicalValue.of(n).asNode() : n;
    }

    @Test
    void treesWithCanonicalValuesCanonicaliseAsThePlainTree() {
        for (long seed = 0; seed < 2000; seed++) {
            JsonNode plain = tree(new Random(seed), 4, false, seed);
            JsonNode wrapped = tree(new Random(seed), 4, true, seed);
            assertEquals(Jcs.canonicalize(plain), Jcs.canonicalize(wrapped), "seed " + seed);
        }
    }

    @Test
    void jacksonWritesTheCanonicalTextWhereTheValueStands() throws Exception {
        ObjectNode inner = NODES.objectNode().put("b", 1.50).put("a", "x\u0001");
        ObjectNode outer = NODES.objectNode();
        outer.set("v", CanonicalValue.of(inner).asNode());
        assertEquals("{\"v\":{\"a\":\"x\\u0001\",\"b\":1.5}}", MAPPER.writeValueAsString(outer));
        assertEquals(MAPPER.readTree("{\"v\":{\"a\":\"x\\u0001\",\"b\":1.5}}"), MAPPER.readTree(outer.toString()));
    }

    @Test
    void copiesOfATreeKeepTheSameValueAndUnwrapGivesTheTree() {
        ObjectNode inner = NODES.objectNode().put("k", "v");
        CanonicalValue c = CanonicalValue.of(inner);
        ArrayNode a = NODES.arrayNode().add(c.asNode());
        ArrayNode copy = a.deepCopy();
        assertSame(c, CanonicalValue.in(copy.get(0)));
        assertSame(inner, CanonicalValue.unwrap(copy.get(0)));
        assertSame(inner, CanonicalValue.unwrap(inner));
        assertNull(CanonicalValue.in(inner));
    }

    @Test
    void refusesWhatJcsRefusesAndOtherPojos() {
        assertThrows(IllegalArgumentException.class, () -> CanonicalValue.of(NODES.textNode("\ud800")));
        assertThrows(IllegalArgumentException.class, () -> CanonicalValue.of(NODES.numberNode(Double.NaN)));
        ArrayNode a = NODES.arrayNode().add(new POJONode(new Object()));
        assertThrows(IllegalArgumentException.class, () -> Jcs.canonicalize(a));
    }
}
