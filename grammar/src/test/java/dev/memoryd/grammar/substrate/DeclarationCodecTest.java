package dev.memoryd.grammar.substrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** Shape errors of a declaration name the offending field. */
class DeclarationCodecTest {
    private static final ObjectMapper M = new ObjectMapper();

    private static DeclarationCodec.Parse parse(String json) throws Exception {
        JsonNode n = M.readTree(json.replace('\'', '"'));
        return DeclarationCodec.parse(n.get("chunks"), n.get("placements"), n.get("removals"), () -> "NEW");
    }

    private static String field(String json) throws Exception {
        DeclarationCodec.Parse p = parse(json);
        assertInstanceOf(DeclarationCodec.Parse.Invalid.class, p, p.toString());
        return ((DeclarationCodec.Parse.Invalid) p).field();
    }

    @Test
    void malformedParts_nameTheirField() throws Exception {
        assertEquals("chunks[0].spec.accepts", field("{'chunks':[{'spec':{'accepts':'prompt'}}]}"));
        assertEquals("chunks[0].spec.orderd", field("{'chunks':[{'spec':{'orderd':true}}]}"));
        assertEquals("chunks[1].body", field("{'chunks':[{},{'body':[1]}]}"));
        assertEquals("chunks[0].name", field("{'chunks':[{'name':'a/b'}]}"));
        assertEquals(
                "chunks[0].placements[0].type", field("{'chunks':[{'placements':[{'scope':'s','type':'member'}]}]}"));
        assertEquals("placements[0].seq", field("{'placements':[{'chunk':'a','scope':'b','seq':-1}]}"));
        assertEquals("placements[0].scope", field("{'placements':[{'chunk':'a'}]}"));
        assertEquals("removals[0].colour", field("{'removals':[{'chunk':'a','colour':'red'}]}"));
        assertEquals("chunks", field("{}"));
        assertEquals("chunks[0]", field("{'chunks':[{'ref':'r','id':'x'}]}"));
    }

    @Test
    void newChunks_getSuppliedIds_andDefaultInstancePlacements() throws Exception {
        Declaration d = ((DeclarationCodec.Parse.Ok) parse("{'chunks':[{'ref':'r','placements':[{'scope':'s'}]}]}"))
                .declaration();
        assertEquals("NEW", d.chunks().get(0).id());
        assertEquals(PlacementType.INSTANCE, d.placements().get(0).type());
        assertEquals("NEW", d.placements().get(0).chunk());
    }
}
