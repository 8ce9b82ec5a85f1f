package dev.memoryd.grammar.substrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Declarations validated on the post-write state: one test per substrate spec rule. */
class DeclareTest {
    private static final ObjectMapper M = new ObjectMapper();
    private final AtomicInteger ids = new AtomicInteger();
    private ChunkGraph g;

    @BeforeEach
    void emptyGraph() {
        g = new ChunkGraph();
    }

    private Declare.Result declare(String json) throws Exception {
        JsonNode n = M.readTree(json.replace('\'', '"'));
        DeclarationCodec.Parse p = DeclarationCodec.parse(
                n.get("chunks"),
                n.get("placements"),
                n.get("removals"),
                () -> String.format("C%025d", ids.incrementAndGet()));
        assertInstanceOf(DeclarationCodec.Parse.Ok.class, p, p.toString());
        return Declare.apply(g, ((DeclarationCodec.Parse.Ok) p).declaration(), "2026-11-20T10:00:00Z");
    }

    private Declare.Applied ok(String json) throws Exception {
        Declare.Result r = declare(json);
        assertInstanceOf(Declare.Applied.class, r, r.toString());
        return (Declare.Applied) r;
    }

    private Declare.Violation violation(String json, String rule) throws Exception {
        int before = g.size();
        String snapshot = snapshot();
        Declare.Result r = declare(json);
        assertInstanceOf(Declare.Violation.class, r, r.toString());
        Declare.Violation v = (Declare.Violation) r;
        assertEquals(rule, v.rule(), v.toString());
        assertEquals(before, g.size(), "a refused declaration leaves the graph as it was");
        assertEquals(snapshot, snapshot(), "a refused declaration leaves the graph as it was");
        return v;
    }

    private String snapshot() {
        StringBuilder sb = new StringBuilder();
        g.chunks().stream().map(c -> g.record(c.id()).toString()).sorted().forEach(sb::append);
        return sb.toString();
    }

    private String id(String path) {
        return ((ChunkGraph.Resolution.Found) g.resolve(path)).id();
    }

    /** The session archetype of the spec: prompt, answer, tool-call (required program), context. */
    private void sessionArchetype() throws Exception {
        ok("{'chunks':[{'ref':'s','name':'session','spec':{'propagate':true,'ordered':true,"
                + "'accepts':['prompt','answer','tool-call']},'body':{'text':'A sequence of agent interaction events'}},"
                + "{'ref':'p','name':'prompt','placements':[{'scope':'s','type':'relates'}]},"
                + "{'ref':'a','name':'answer','placements':[{'scope':'s','type':'relates'}]},"
                + "{'ref':'t','name':'tool-call','spec':{'required':['program']},'placements':[{'scope':'s','type':'relates'}]},"
                + "{'ref':'m','name':'my-session','placements':[{'scope':'s'}]}]}");
    }

    @Test
    void sessionExample_dualPlacementInOneDeclaration_isAccepted_andSeqAutoAssigned() throws Exception {
        sessionArchetype();
        ok(
                "{'chunks':[{'ref':'q','body':{'text':'Why duplicates?'},'placements':[{'scope':'my-session'},{'scope':'session/prompt'}]},"
                        + "{'ref':'t','body':{'text':'grep','program':'filesystem'},'placements':[{'scope':'my-session'},{'scope':'session/tool-call'}]}]}");
        List<String> events = g.scope(List.of(id("my-session")), List.of());
        assertEquals(2, events.size());
        assertEquals(1L, g.placement(events.get(0), id("my-session")).seq());
        assertEquals(2L, g.placement(events.get(1), id("my-session")).seq());
        ok("{'chunks':[{'body':{'text':'Fixed.'},'placements':[{'scope':'my-session'},{'scope':'session/answer'}]}]}");
        assertEquals(3L, g.maxSeq(id("my-session")), "auto seq is max + 1");
    }

    @Test
    void ordered_explicitSeqIsKept() throws Exception {
        ok(
                "{'chunks':[{'ref':'ctx','name':'context','spec':{'ordered':true}},{'name':'x','placements':[{'scope':'ctx','seq':10}]}]}");
        assertEquals(10L, g.placement(id("context/x"), id("context")).seq());
        ok("{'chunks':[{'name':'y','placements':[{'scope':'context'}]}]}");
        assertEquals(11L, g.placement(id("context/y"), id("context")).seq());
    }

    @Test
    void ordered_placingAgainWithoutSeq_keepsThePosition() throws Exception {
        ok(
                "{'chunks':[{'ref':'ctx','name':'context','spec':{'ordered':true}},{'name':'x','placements':[{'scope':'ctx'}]},"
                        + "{'name':'y','placements':[{'scope':'ctx'}]}]}");
        ok("{'placements':[{'chunk':'context/x','scope':'context'}]}");
        assertEquals(1L, g.placement(id("context/x"), id("context")).seq());
        assertEquals(List.of(id("context/x"), id("context/y")), g.scope(List.of(id("context")), List.of()));
    }

    @Test
    void ordered_existingInstanceWithoutSeq_whenScopeBecomesOrdered_isRejected() throws Exception {
        ok("{'chunks':[{'ref':'c','name':'list'},{'name':'item','placements':[{'scope':'c'}]}]}");
        Declare.Violation v = violation("{'chunks':[{'id':'" + id("list") + "','spec':{'ordered':true}}]}", "ordered");
        assertEquals(id("list/item"), v.chunk());
    }

    @Test
    void accepts_instanceOfNoAcceptedType_isRejected() throws Exception {
        sessionArchetype();
        Declare.Violation v = violation(
                "{'chunks':[{'ref':'x','name':'stray','body':{'text':'untyped'},"
                        + "'placements':[{'scope':'my-session'}]}]}",
                "accepts");
        assertEquals("stray", v.chunkName());
        assertTrue(v.message().contains("prompt"), v.message());
    }

    @Test
    void accepts_instanceOfTwoAcceptedTypes_isRejected() throws Exception {
        sessionArchetype();
        Declare.Violation v = violation(
                "{'chunks':[{'ref':'x','body':{'text':'both'},'placements':[{'scope':'my-session'},"
                        + "{'scope':'session/prompt'},{'scope':'session/answer'}]}]}",
                "accepts");
        assertTrue(v.message().contains("ambiguity"), v.message());
    }

    @Test
    void accepts_namesResolveInTheArchetypesOwnScope_notGlobally() throws Exception {
        sessionArchetype();
        // A root-level chunk also named 'prompt' is not the session's prompt type.
        ok("{'chunks':[{'name':'prompt','body':{'text':'an unrelated prompt concept'}}]}");
        String globalPrompt = g.named("prompt").stream()
                .filter(x -> g.placementsOf(x).isEmpty())
                .findFirst()
                .orElseThrow();
        violation(
                "{'chunks':[{'body':{'text':'wrong type'},'placements':[{'scope':'my-session'},{'scope':'"
                        + globalPrompt + "'}]}]}",
                "accepts");
    }

    @Test
    void required_missingBodyKey_isRejected_presentIsAccepted() throws Exception {
        sessionArchetype();
        Declare.Violation v = violation(
                "{'chunks':[{'body':{'text':'grep'},'placements':[{'scope':'my-session'},"
                        + "{'scope':'session/tool-call'}]}]}",
                "required");
        assertTrue(v.message().contains("program"), v.message());
        ok("{'chunks':[{'body':{'text':'grep','program':'fs'},'placements':[{'scope':'session/tool-call'}]}]}");
    }

    @Test
    void unique_duplicateValueAmongInstances_isRejected() throws Exception {
        ok("{'chunks':[{'ref':'u','name':'users','spec':{'unique':['email']}},"
                + "{'body':{'email':'a@x'},'placements':[{'scope':'u'}]}]}");
        violation("{'chunks':[{'body':{'email':'a@x'},'placements':[{'scope':'users'}]}]}", "unique");
        ok(
                "{'chunks':[{'body':{'email':'b@x'},'placements':[{'scope':'users'}]},{'body':{'other':1},'placements':[{'scope':'users'}]}]}");
    }

    @Test
    void unique_twoNewChunksCollidingInOneDeclaration_isRejected() throws Exception {
        ok("{'chunks':[{'name':'users','spec':{'unique':['email']}}]}");
        violation(
                "{'chunks':[{'body':{'email':'a'},'placements':[{'scope':'users'}]},"
                        + "{'body':{'email':'a'},'placements':[{'scope':'users'}]}]}",
                "unique");
    }

    @Test
    void propagate_isNotEnforcedOnDirectPlacements_butOnInstancesChildren() throws Exception {
        ok("{'chunks':[{'ref':'a','name':'doc','spec':{'propagate':true,'required':['text']}},"
                + "{'name':'d1','placements':[{'scope':'a'}]}]}"); // d1 has no text: fine, direct placement
        violation("{'chunks':[{'body':{'x':1},'placements':[{'scope':'doc/d1'}]}]}", "required");
        ok("{'chunks':[{'body':{'text':'ok'},'placements':[{'scope':'doc/d1'}]}]}");
    }

    @Test
    void propagate_unionOfTwoArchetypes_composes() throws Exception {
        ok(
                "{'chunks':[{'name':'a','spec':{'propagate':true,'required':['x']}},{'name':'b','spec':{'propagate':true,'required':['y']}}]}");
        ok("{'chunks':[{'name':'both','placements':[{'scope':'a'},{'scope':'b'}]}]}");
        violation("{'chunks':[{'body':{'x':1},'placements':[{'scope':'a/both'}]}]}", "required");
        ok("{'chunks':[{'body':{'x':1,'y':2},'placements':[{'scope':'a/both'}]}]}");
    }

    @Test
    void propagate_isTransitive_throughInstanceChains() throws Exception {
        ok("{'chunks':[{'ref':'top','name':'top','spec':{'propagate':true,'required':['k']}},"
                + "{'ref':'mid','name':'mid','placements':[{'scope':'top'}]},"
                + "{'ref':'low','name':'low','body':{'k':1},'placements':[{'scope':'mid'}]}]}");
        // low sits on mid, an instance of top: checked against top's propagating spec ...
        violation("{'chunks':[{'name':'low2','placements':[{'scope':'top/mid'}]}]}", "required");
        // ... and so does anything on low, transitively an instance of top.
        violation("{'chunks':[{'body':{},'placements':[{'scope':'top/mid/low'}]}]}", "required");
    }

    @Test
    void propagate_newArchetypeMembership_checksExistingChildren() throws Exception {
        ok("{'chunks':[{'name':'strict','spec':{'propagate':true,'required':['k']}},"
                + "{'ref':'s','name':'loose'},{'body':{},'placements':[{'scope':'s'}]}]}");
        violation("{'placements':[{'chunk':'loose','scope':'strict'}]}", "required");
    }

    @Test
    void name_uniqueWithinScope_otherScopesMayReuseIt() throws Exception {
        ok("{'chunks':[{'ref':'a','name':'a'},{'ref':'b','name':'b'},{'name':'n','placements':[{'scope':'a'}]}]}");
        violation("{'chunks':[{'name':'n','placements':[{'scope':'a'}]}]}", "name");
        ok("{'chunks':[{'name':'n','placements':[{'scope':'b'}]}]}");
        ok("{'chunks':[{'name':'n','placements':[{'scope':'a','type':'relates'}]}]}"); // only instances must differ
    }

    @Test
    void name_sameChunkMayCarryItsNameOnManyScopes() throws Exception {
        ok(
                "{'chunks':[{'ref':'a','name':'a'},{'ref':'b','name':'b'},{'name':'n','placements':[{'scope':'a'},{'scope':'b'}]}]}");
        assertEquals(id("a/n"), id("b/n"));
    }

    @Test
    void atomic_oneViolation_recordsNothingOfTheDeclaration() throws Exception {
        sessionArchetype();
        int before = g.size();
        violation(
                "{'chunks':[{'name':'fine','body':{}},{'body':{'text':'bad'},'placements':[{'scope':'my-session'}]}]}",
                "accepts");
        assertEquals(before, g.size());
        assertTrue(g.named("fine").isEmpty());
    }

    @Test
    void removal_dropsChunkAndItsPlacements_fromReads() throws Exception {
        ok("{'chunks':[{'ref':'t','name':'topic'},{'ref':'n','name':'note','placements':[{'scope':'t'}]},"
                + "{'name':'sub','placements':[{'scope':'n'}]}]}");
        String note = id("topic/note");
        Declare.Applied a = ok("{'removals':[{'chunk':'" + note + "'}]}");
        assertEquals(List.of(note), a.removed());
        assertTrue(g.scope(List.of(id("topic")), List.of()).isEmpty());
        assertTrue(g.placementsOf(id("sub")).isEmpty(), "placements onto a removed chunk drop out too");
    }

    @Test
    void removal_ofOnePlacement_keepsTheChunk() throws Exception {
        ok(
                "{'chunks':[{'ref':'a','name':'a'},{'ref':'b','name':'b'},{'name':'n','placements':[{'scope':'a'},{'scope':'b'}]}]}");
        ok("{'removals':[{'chunk':'a/n','scope':'a'}]}");
        assertTrue(g.scope(List.of(id("a")), List.of()).isEmpty());
        assertEquals(1, g.scope(List.of(id("b")), List.of()).size());
    }

    @Test
    void removal_ofATypeStillUsedByInstances_isRejected() throws Exception {
        sessionArchetype();
        ok("{'chunks':[{'body':{'text':'q'},'placements':[{'scope':'my-session'},{'scope':'session/prompt'}]}]}");
        violation("{'removals':[{'chunk':'session/prompt'}]}", "accepts");
    }

    @Test
    void references_unknownOrAmbiguous_areRefused() throws Exception {
        ok("{'chunks':[{'ref':'a','name':'a'},{'ref':'b','name':'b'},{'name':'n','placements':[{'scope':'a'}]},"
                + "{'name':'n','placements':[{'scope':'b'}]}]}");
        Declare.Result r = declare("{'chunks':[{'name':'x','placements':[{'scope':'nope'}]}]}");
        assertEquals(Declare.Refusal.Kind.NOT_FOUND, ((Declare.Refusal) r).kind());
        r = declare("{'chunks':[{'name':'x','placements':[{'scope':'n'}]}]}");
        assertEquals(Declare.Refusal.Kind.INVALID, ((Declare.Refusal) r).kind());
        assertTrue(g.named("x").isEmpty());
    }

    @Test
    void redeclaringTheSameState_changesNothing() throws Exception {
        ok("{'chunks':[{'ref':'a','name':'a'},{'name':'n','body':{'k':1},'placements':[{'scope':'a'}]}]}");
        Declare.Applied a =
                ok("{'chunks':[{'id':'" + id("a/n") + "','body':{'k':1}}],'placements':[{'chunk':'a/n','scope':'a'}]}");
        assertTrue(!a.changed(), a.toString());
    }

    @Test
    void derivedChunks_areReadOnly() throws Exception {
        g.put(new ChunkRecord(
                new Chunk(
                        "U1", "sam", Spec.EMPTY, M.createObjectNode(), "users/sam/overview.md", null, true, null, null),
                List.of()));
        Declare.Result r = declare("{'chunks':[{'id':'U1','body':{'x':1}}]}");
        assertEquals(Declare.Refusal.Kind.PROHIBITED, ((Declare.Refusal) r).kind());
        ok("{'chunks':[{'name':'note','placements':[{'scope':'sam','type':'relates'}]}]}"); // placing onto it is fine
        assertNull(g.chunk("U1").spec().toJson().get("ordered"));
    }

    /** A chunk record as another branch's chunk file would bring it: {@code scopes} are instance placements. */
    private static ChunkRecord record(String id, String name, String bodyJson, String... scopes) throws Exception {
        List<Placement> ps = new java.util.ArrayList<>();
        for (String s : scopes) {
            ps.add(new Placement(id, s, PlacementType.INSTANCE, null));
        }
        return new ChunkRecord(
                new Chunk(
                        id,
                        name,
                        Spec.EMPTY,
                        (com.fasterxml.jackson.databind.node.ObjectNode) M.readTree(bodyJson.replace('\'', '"')),
                        Declare.fileOf(id),
                        null,
                        false,
                        null,
                        null),
                ps);
    }

    @Test
    void check_aMergedChunkWhoseNameIsTakenInItsScope_isANameViolation_andTheGraphStaysAsItWas() throws Exception {
        ok("{'chunks':[{'ref':'t','name':'topic'},{'name':'x','placements':[{'scope':'t'}]}]}");
        String ours = id("topic/x");
        String snapshot = snapshot();
        Declare.Violation v = Declare.check(g, List.of(record("THEIRS", "x", "{}", id("topic"))), List.of());
        assertEquals("name", v.rule(), v.toString());
        assertEquals("THEIRS", v.chunk());
        assertEquals(id("topic"), v.scope());
        assertTrue(v.message().contains(ours) && v.message().contains("THEIRS"), v.message());
        assertEquals(snapshot, snapshot(), "a check records nothing");
        assertNull(Declare.check(g, List.of(record("THEIRS", "y", "{}", id("topic"))), List.of()));
        assertEquals(snapshot, snapshot(), "nor does a check that passes");
        // The one that holds the name leaving (renamed, on the other side) clears it.
        ChunkRecord renamed = new ChunkRecord(
                new Chunk(
                        ours,
                        "x-ours",
                        Spec.EMPTY,
                        M.createObjectNode(),
                        Declare.fileOf(ours),
                        null,
                        false,
                        null,
                        null),
                g.record(ours).placements());
        assertNull(Declare.check(g, List.of(record("THEIRS", "x", "{}", id("topic")), renamed), List.of()));
    }

    @Test
    void check_appliesEverySpecRule_asADeclarationWould() throws Exception {
        ok("{'chunks':[{'name':'users','spec':{'unique':['email'],'required':['email']}},"
                + "{'name':'log','spec':{'ordered':true}}]}");
        ok("{'chunks':[{'body':{'email':'a@x'},'placements':[{'scope':'users'}]}]}");
        assertEquals(
                "unique",
                Declare.check(g, List.of(record("M1", null, "{'email':'a@x'}", id("users"))), List.of())
                        .rule());
        assertEquals(
                "required",
                Declare.check(g, List.of(record("M1", null, "{}", id("users"))), List.of())
                        .rule());
        assertEquals(
                "ordered",
                Declare.check(g, List.of(record("M1", null, "{}", id("log"))), List.of())
                        .rule(),
                "a merged placement gets no seq assigned");
        assertNull(Declare.check(g, List.of(record("M1", null, "{'email':'b@x'}", id("users"))), List.of()));
    }

    @Test
    void check_removingATypeStillUsed_isAnAcceptsViolation() throws Exception {
        sessionArchetype();
        ok("{'chunks':[{'body':{'text':'q'},'placements':[{'scope':'my-session'},{'scope':'session/prompt'}]}]}");
        String snapshot = snapshot();
        assertEquals(
                "accepts",
                Declare.check(g, List.of(), List.of(id("session/prompt"))).rule());
        assertEquals(snapshot, snapshot());
    }
}
