package dev.memoryd.grammar.slices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.grammar.slices.LinkGraph.Edge;
import dev.memoryd.grammar.slices.LinkGraph.ExploredLink;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LinkGraphTest {

    private static LinkGraph graph(Edge... es) {
        return LinkGraph.ofEdges(List.of(es));
    }

    private static List<String> show(List<ExploredLink> ls) {
        return ls.stream()
                .map(l -> l.from() + " " + l.rel() + " " + l.to() + (l.inferred() ? " *" : "")
                        + (l.via().isEmpty() ? "" : " via " + l.via()))
                .toList();
    }

    @Test
    void relationTable_hasInversesBothWaysAndTheSpecsProperties() {
        assertEquals(17, Relations.names().size());
        for (Relations.Relation r : Relations.all()) {
            Relations.Relation inv = Relations.of(r.inverse()).orElseThrow();
            assertEquals(r.name(), inv.inverse());
            assertEquals(r.transitive(), inv.transitive());
        }
        assertTrue(Relations.of("type_of").orElseThrow().transitive());
        assertTrue(Relations.of("see_also").orElseThrow().symmetric());
        assertEquals("blocks", Relations.of("depends_on").orElseThrow().inverse());
        assertEquals(false, Relations.of("evidence_for").orElseThrow().transitive());
        assertEquals(false, Relations.of("routes_to").orElseThrow().transitive());
    }

    @Test
    void withoutInference_onlyStatedLinksAreReturned() {
        LinkGraph g = graph(
                new Edge("A", "depends_on", "B"), new Edge("B", "depends_on", "C"), new Edge("C", "see_also", "A"));
        assertEquals(List.of("A depends_on B"), show(g.explore("A", Optional.empty(), false)));
    }

    @Test
    void transitiveChain_infersTheFarEndWithItsPath() {
        LinkGraph g = graph(
                new Edge("A", "depends_on", "B"), new Edge("B", "depends_on", "C"), new Edge("C", "depends_on", "D"));
        assertEquals(
                List.of("A depends_on B", "A depends_on C * via [B]", "A depends_on D * via [B, C]"),
                show(g.explore("A", Optional.of("depends_on"), true)));
    }

    @Test
    void inverseOfATransitiveChain_isInferredFromTheOtherEnd() {
        LinkGraph g = graph(new Edge("A", "depends_on", "B"), new Edge("B", "depends_on", "C"));
        assertEquals(
                List.of("C blocks B *", "C blocks A * via [B]"), show(g.explore("C", Optional.of("blocks"), true)));
    }

    @Test
    void typeOfFromTheSpecsExample_collectsDirectAndInferredSubtypes() {
        LinkGraph g = graph(
                new Edge("BUTTON", "is_a", "COMPONENT"),
                new Edge("ICON_BUTTON", "is_a", "BUTTON"),
                new Edge("COMPONENT", "type_of", "PANEL"));
        assertEquals(
                List.of(
                        "COMPONENT type_of BUTTON *",
                        "COMPONENT type_of PANEL",
                        "COMPONENT type_of ICON_BUTTON * via [BUTTON]"),
                show(g.explore("COMPONENT", Optional.of("type_of"), true)));
    }

    @Test
    void symmetricSeeAlso_worksBothWaysButIsNotTransitive() {
        LinkGraph g = graph(new Edge("A", "see_also", "B"), new Edge("B", "see_also", "C"));
        assertEquals(List.of("B see_also A *", "B see_also C"), show(g.explore("B", Optional.empty(), true)));
        assertEquals(List.of("C see_also B *"), show(g.explore("C", Optional.empty(), true)));
    }

    @Test
    void childAndParent_areInversesOfEachOther() {
        LinkGraph g = graph(new Edge("ROOT", "parent", "MID"), new Edge("LEAF", "child", "MID"));
        assertEquals(List.of("MID child ROOT *", "MID parent LEAF *"), show(g.explore("MID", Optional.empty(), true)));
        assertEquals(
                List.of("ROOT parent MID", "ROOT parent LEAF * via [MID]"),
                show(g.explore("ROOT", Optional.of("parent"), true)));
    }

    @Test
    void cycles_terminateAndNeverReportTheStartAsInferredTarget() {
        LinkGraph g = graph(
                new Edge("A", "depends_on", "B"), new Edge("B", "depends_on", "C"), new Edge("C", "depends_on", "A"));
        List<ExploredLink> ls = g.explore("A", Optional.of("depends_on"), true);
        assertEquals(List.of("A depends_on B", "A depends_on C * via [B]"), show(ls));
        // Inverse edges close cycles too: blocks from A reaches C directly and B through C.
        assertEquals(
                List.of("A blocks C *", "A blocks B * via [C]"), show(g.explore("A", Optional.of("blocks"), true)));
    }

    @Test
    void statedLink_isNeverAlsoReportedAsInferred() {
        LinkGraph g = graph(
                new Edge("A", "parent", "B"),
                new Edge("B", "child", "A"),
                new Edge("A", "parent", "C"),
                new Edge("B", "parent", "C"));
        assertEquals(List.of("A parent B", "A parent C"), show(g.explore("A", Optional.of("parent"), true)));
    }

    @Test
    void nonTransitiveRelations_areNotChained() {
        LinkGraph g = graph(new Edge("A", "evidence_for", "B"), new Edge("B", "evidence_for", "C"));
        assertEquals(List.of("A evidence_for B"), show(g.explore("A", Optional.empty(), true)));
        assertEquals(
                List.of("B evidence_against A *", "B evidence_for C"), show(g.explore("B", Optional.empty(), true)));
    }

    @Test
    void order_isRelThenHopsThenTarget_andIndependentOfInsertionOrder() {
        List<Edge> es = List.of(
                new Edge("A", "see_also", "Z"),
                new Edge("A", "depends_on", "Y"),
                new Edge("A", "depends_on", "X"),
                new Edge("X", "depends_on", "W"),
                new Edge("Y", "depends_on", "V"));
        List<ExploredLink> one = LinkGraph.ofEdges(es).explore("A", Optional.empty(), true);
        List<ExploredLink> two = LinkGraph.ofEdges(reversed(es)).explore("A", Optional.empty(), true);
        assertEquals(one, two);
        assertEquals(
                List.of(
                        "A depends_on X",
                        "A depends_on Y",
                        "A depends_on V * via [Y]",
                        "A depends_on W * via [X]",
                        "A see_also Z"),
                show(one));
    }

    private static List<Edge> reversed(List<Edge> es) {
        List<Edge> r = new java.util.ArrayList<>(es);
        java.util.Collections.reverse(r);
        return r;
    }

    @Test
    void graphFromSlices_usesLinksAndDerivedFrom() {
        var a = SliceValidatorTest.base("id: SUM\nderived_from: {id: DUMP, hash: 'sha256:" + "0".repeat(64)
                + "'}\nlinks: [{rel: parent, to: DATA}]");
        var b = SliceValidatorTest.base("id: DUMP\nlinks: [{rel: parent, to: ./data.slice}]");
        LinkGraph g = LinkGraph.of(List.of(a, b));
        assertEquals(
                List.of("SUM derived_from DUMP", "SUM parent DATA"), show(g.explore("SUM", Optional.empty(), false)));
        assertEquals(
                List.of("DUMP parent ./data.slice", "DUMP source_of SUM *"),
                show(g.explore("DUMP", Optional.empty(), true)));
    }

    @Test
    void unknownNodeOrRel_givesNoLinks() {
        LinkGraph g = graph(new Edge("A", "depends_on", "B"));
        assertEquals(List.of(), g.explore("Q", Optional.empty(), true));
        assertEquals(List.of(), g.explore("A", Optional.of("is_a"), true));
    }
}
