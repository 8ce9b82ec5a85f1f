package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.jcs.CanonicalValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A payload whose elements were canonicalised beforehand ({@link CanonicalValue}) is stored as the
 * same bytes, under the same HMAC chain, as the plain payload it stands for.
 */
class PrecanonicalPayloadTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    @TempDir
    Path tmp;

    /** Rows with escapes, non-ASCII text, numbers in both forms and nested objects, members unsorted. */
    private static ObjectNode row(int i) {
        ObjectNode r = NODES.objectNode();
        r.put("z_text", "row " + i + " \"quoted\" \\ tab\t ✓ 😀 \u0001");
        r.put("id", "0000000" + i + "-0000-4000-8000-000000000000");
        r.put("salience", i / 7.0);
        r.put("depth", i * 1000);
        r.put("flag", i % 2 == 0);
        r.putNull("nothing");
        ArrayNode ps = r.putArray("parents");
        ps.addObject().put("id", "p" + i).put("edge_type", "reply");
        return r;
    }

    private static ObjectNode payload(UnaryOperator<JsonNode> element) {
        ObjectNode p = NODES.objectNode();
        p.put("session_id", "s1");
        ArrayNode turns = p.putArray("turns");
        for (int i = 0; i < 20; i++) {
            turns.add(element.apply(row(i)));
        }
        p.put("new_slice", true);
        return p;
    }

    private static List<EventDraft> drafts(UnaryOperator<JsonNode> element) {
        IdGenerator ids = Fixtures.ids(3);
        List<EventDraft> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            EventDraft d = Fixtures.draft(ids, "main", i);
            out.add(Fixtures.with(d, "conversation_append", payload(element)));
        }
        return out;
    }

    private byte[] written(String name, UnaryOperator<JsonNode> element) throws Exception {
        Path dir = tmp.resolve(name);
        try (Ledger l = Fixtures.open(dir, 128)) {
            Chain c = l.chain(BranchName.of("main"));
            c.append(drafts(element));
            c.sync();
        }
        assertTrue(Verifier.verify(dir, Fixtures.keys(), Map.of()).ok(), "ledger verify of " + name);
        return Files.readAllBytes(dir.resolve("main/0000/00000000.ndjson"));
    }

    @Test
    void storesTheSameLinesAndHashesAsThePlainPayload() throws Exception {
        byte[] plain = written("plain", n -> n);
        byte[] precanonical = written("precanonical", n -> CanonicalValue.of(n).asNode());
        assertEquals(
                new String(plain, java.nio.charset.StandardCharsets.UTF_8)
                        .lines()
                        .count(),
                3);
        assertArrayEquals(plain, precanonical);
    }

    @Test
    void appendedEventsCarryTheCanonicalNodesThroughTheirCopies() {
        CanonicalValue first = CanonicalValue.of(row(0));
        try (Ledger l = Fixtures.open(tmp.resolve("carry"), 128)) {
            EventDraft d = drafts(n -> n).get(0);
            ObjectNode p = NODES.objectNode();
            p.putArray("turns").add(first.asNode());
            EventDraft withNode = Fixtures.withPayload(d, p);
            Event e = l.chain(BranchName.of("main")).append(List.of(withNode)).get(0);
            assertTrue(CanonicalValue.in(e.payload().get("turns").get(0)) == first);
            assertEquals(
                    row(0),
                    CanonicalValue.unwrap(e.toJson().get("payload").get("turns").get(0)));
        }
    }
}
