package dev.memoryd.grammar.substrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.grammar.slices.SliceFile;
import dev.memoryd.grammar.slices.SliceValidator;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkFileTest {
    private static final ObjectMapper M = new ObjectMapper();

    @Test
    void render_isValidSlicesV1_andParsesBackToTheSameRecord() throws Exception {
        ObjectNode body =
                (ObjectNode) M.readTree("{\"text\":\"héllo: world\",\"n\":3,\"nested\":{\"a\":[\"true\",\"123\"]}}");
        ChunkRecord r = new ChunkRecord(
                new Chunk(
                        "01JABCDEFGHJKMNPQRSTVWXYZ0",
                        "123",
                        new Spec(true, List.of("prompt"), List.of(), List.of("k"), true),
                        body,
                        ".slices/01JABCDEFGHJKMNPQRSTVWXYZ0.slice",
                        null,
                        false,
                        "2026-11-20T10:00:00Z",
                        "2026-11-21T10:00:00Z"),
                List.of(
                        new Placement("01JABCDEFGHJKMNPQRSTVWXYZ0", "S1", PlacementType.INSTANCE, 4L),
                        new Placement("01JABCDEFGHJKMNPQRSTVWXYZ0", "S2", PlacementType.RELATES, null)));
        String text = ChunkFile.render(r);
        assertTrue(SliceValidator.validate(SliceFile.parse(text)).isEmpty(), text);
        ChunkFile.Parsed p = ChunkFile.parse(r.chunk().file(), text).orElseThrow();
        assertEquals(r, ((ChunkFile.Parsed.Live) p).record());
        assertEquals(r, ChunkFile.fromJson(ChunkFile.toJson(r)));
        assertEquals(text, ChunkFile.render(((ChunkFile.Parsed.Live) p).record()), "rendering is deterministic");
    }

    @Test
    void tombstone_parsesAsRemoved() {
        String text = ChunkFile.renderRemoved("01JX", "2026-11-20T10:00:00Z");
        assertTrue(SliceValidator.validate(SliceFile.parse(text)).isEmpty(), text);
        assertEquals(
                new ChunkFile.Parsed.Removed("01JX", "2026-11-20T10:00:00Z"),
                ChunkFile.parse("x", text).orElseThrow());
    }
}
