package dev.memoryd.daemon.substrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.grammar.substrate.ChunkGraph;
import dev.memoryd.grammar.substrate.DeclarationCodec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Recovery redoes a declaration from its events alone, byte for byte, removals included. */
class ReplayTest {
    private static final ObjectMapper M = new ObjectMapper();
    private final AtomicInteger ids = new AtomicInteger();
    private final ChunkGraph graph = new ChunkGraph();

    private Mutation.Done declare(String json) throws Exception {
        JsonNode n = M.readTree(json.replace('\'', '"'));
        DeclarationCodec.Parse p = DeclarationCodec.parse(
                n.get("chunks"),
                n.get("placements"),
                n.get("removals"),
                () -> String.format("01J%023d", ids.incrementAndGet()));
        Mutation.Result r = new DeclareMutation(graph, ((DeclarationCodec.Parse.Ok) p).declaration(), () -> {})
                .apply(path -> Optional.empty(), Instant.parse("2026-11-20T10:00:00Z"));
        assertInstanceOf(Mutation.Done.class, r, r.toString());
        return (Mutation.Done) r;
    }

    private static Mutation.Done replay(Mutation.Done original) {
        List<JsonNode> payloads = new ArrayList<>();
        for (Mutation.EventSpec e : original.events()) {
            ObjectNode p = e.payload().deepCopy();
            p.putObject("decl").put("id", "x"); // the pipeline adds this; replay must ignore it
            payloads.add(p);
        }
        return (Mutation.Done)
                new Replay(payloads).apply(path -> Optional.empty(), Instant.parse("2030-01-01T00:00:00Z"));
    }

    @Test
    void replayFromPayloads_rendersTheSameFiles() throws Exception {
        Mutation.Done a = declare("{'chunks':[{'ref':'s','name':'list','spec':{'ordered':true,'unique':['k']}},"
                + "{'name':'one','body':{'k':1,'text':'x'},'placements':[{'scope':'s'}]}]}");
        assertEquals(2, a.events().size());
        assertEquals(a.newContents(), replay(a).newContents());
        Mutation.Done rm = declare("{'removals':[{'chunk':'list/one'}]}");
        assertEquals(rm.newContents(), replay(rm).newContents());
        assertEquals(1, rm.newContents().size());
    }
}
