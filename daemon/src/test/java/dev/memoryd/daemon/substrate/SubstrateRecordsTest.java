package dev.memoryd.daemon.substrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.memoryd.grammar.substrate.Chunk;
import dev.memoryd.grammar.substrate.Spec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The substrate's result records refuse what no read can answer, so the wire never carries it. */
class SubstrateRecordsTest {

    @Test
    void aGraphPoint_isOfABranchOrOfOnePeer_neverBothOrNeither() {
        assertThrows(IllegalArgumentException.class, () -> new GraphPoint("main", "docs", "c"));
        assertThrows(IllegalArgumentException.class, () -> new GraphPoint(null, null, "c"));
        assertTrue(new GraphPoint(null, "docs", null).ofPeer());
    }

    @Test
    void aVerdict_countsAtLeastTheCommitsItLists_andCopiesItsLists() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new DerivedVerdict("abc1234", List.of("s"), true, List.of("c1", "c2"), 1, null));
        List<String> sources = new ArrayList<>(List.of("s"));
        DerivedVerdict v = new DerivedVerdict("abc1234", sources, true, List.of("c1"), 3, null);
        sources.add("t");
        assertEquals(List.of("s"), v.sources());
        assertTrue(v.moreThanListed());
    }

    @Test
    void aScopePage_holdsNoMoreThanItsLimit() {
        GraphPoint at = new GraphPoint("main", null, null);
        Chunk c = new Chunk(
                "01J0000000000000000000000A",
                null,
                Spec.EMPTY,
                JsonNodeFactory.instance.objectNode(),
                ".slices/01J0000000000000000000000A.slice",
                null,
                false,
                null,
                null);
        List<ScopeResult.Member> page = List.of(new ScopeResult.Member(c, List.of(), null));
        assertThrows(IllegalArgumentException.class, () -> new ScopeResult(at, 1, 0, 0, List.of(), List.of(), page));
        assertEquals(1, new ScopeResult(at, 1, 0, 1, List.of(), List.of(), page).returned());
    }

    @Test
    void aTraversal_startsItsDepthsAtOne() {
        Chunk c = new Chunk(
                "01J0000000000000000000000A",
                null,
                null,
                JsonNodeFactory.instance.objectNode(),
                "f",
                null,
                false,
                null,
                null);
        assertThrows(IllegalArgumentException.class, () -> new TraverseResult.Reached(c, 0, null));
        assertThrows(IllegalArgumentException.class, () -> new TraverseResult.Connection(c, 0, List.of()));
    }
}
