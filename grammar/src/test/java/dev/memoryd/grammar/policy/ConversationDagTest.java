package dev.memoryd.grammar.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConversationDagTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static String id(int n) {
        return String.format("00000000-0000-4000-8000-%012d", n);
    }

    static ObjectNode turn(int n, int... parents) {
        ObjectNode t = JSON.createObjectNode();
        t.put("id", id(n));
        t.put("session_id", "s");
        t.put("role", "user");
        t.put("phase", "planning");
        t.put("salience", 0.5);
        t.put("trajectory_depth", 0);
        t.put("trajectory_sibling_order", 0);
        t.put("trajectory_homogeneity", 0.5);
        t.put("trajectory_temporal", 0.5);
        t.put("trajectory_complexity", 0.0);
        t.put("created_at", "2026-01-01T00:00:00Z");
        ArrayNode ps = t.putArray("parents");
        for (int p : parents) {
            ps.addObject().put("id", id(p)).put("edge_type", "reply");
        }
        return t;
    }

    static ObjectNode dag(ObjectNode... turns) {
        ObjectNode d = JSON.createObjectNode();
        ArrayNode a = d.putArray("turns");
        for (ObjectNode t : turns) {
            a.add(t);
        }
        return d;
    }

    @Test
    void neighboursFollowDesignOrder() {
        ObjectNode a = turn(3, 2, 1);
        ObjectNode b = turn(5, 1);
        b.put("trajectory_sibling_order", 1);
        ObjectNode c = turn(9, 1);
        ObjectNode d = turn(4, 2);
        ConversationDag g = ConversationDag.fromJson(dag(c, a, b, turn(1), turn(2), d));
        assertEquals(List.of(id(1), id(2)), g.parents(id(3)));
        assertEquals(List.of(id(3), id(5), id(9)), g.children(id(1)));
        // Parent 1: others of 3 by (order, id) = 9 (0), 5 (1); then parent 2: 4.
        assertEquals(List.of(id(9), id(5), id(4)), g.siblings(id(3), 5));
        assertEquals(List.of(id(9), id(4)), g.siblings(id(3), 1));
        assertEquals(List.of(), g.siblings(id(3), 0));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "id|ABC|turns[0].id",
                "session_id|''|turns[0].session_id",
                "role|robot|turns[0].role",
                "phase|reflection|turns[0].phase",
                "created_at|2026-01-01T00:00:00+01:00|turns[0].created_at",
                "created_at|1704067200|turns[0].created_at",
            })
    void badTextFieldsAreNamed(String field, String value, String path) {
        ObjectNode t = turn(1);
        t.put(field, value);
        PolicyInputException e = assertThrows(PolicyInputException.class, () -> ConversationDag.fromJson(dag(t)));
        assertEquals(path, e.field(), e.getMessage());
    }

    @Test
    void badNumbersAndStructureAreNamed() {
        ObjectNode t = turn(1);
        t.put("salience", 1.5);
        assertEquals("turns[0].salience", fieldOf(dag(t)));
        ObjectNode u = turn(1);
        u.put("trajectory_depth", 1.5);
        assertEquals("turns[0].trajectory_depth", fieldOf(dag(u)));
        ObjectNode v = turn(1);
        v.remove("trajectory_temporal");
        assertEquals("turns[0].trajectory_temporal", fieldOf(dag(v)));
        ObjectNode w = turn(1);
        w.put("extra", 1);
        assertEquals("turns[0].extra", fieldOf(dag(w)));
        ObjectNode x = turn(2, 1);
        ((ObjectNode) x.get("parents").get(0)).put("edge_type", "sibling");
        assertEquals("turns[1].parents[0].edge_type", fieldOf(dag(turn(1), x)));
        assertEquals("turns[0].parents[0].id", fieldOf(dag(turn(2, 7))));
        assertEquals("turns[1].id", fieldOf(dag(turn(1), turn(1))));
        assertEquals("turns[0].parents[0].id", fieldOf(dag(turn(1, 1))));
        ObjectNode y = turn(2, 1, 1);
        assertEquals("turns[1].parents[1]", fieldOf(dag(turn(1), y)));
        String cycle = fieldOf(dag(turn(1, 3), turn(2, 1), turn(3, 2)));
        assertTrue(cycle.matches("turns\\[\\d]\\.parents"), cycle);
        assertEquals("turns", fieldOf(JSON.createObjectNode()));
    }

    @Test
    void unknownAnchorIsNotFound() {
        ConversationDag g = ConversationDag.fromJson(dag(turn(1)));
        PolicyInputException e =
                assertThrows(PolicyInputException.class, () -> ContextSelector.select(g, id(2), PolicyConfig.DEFAULT));
        assertEquals(PolicyInputException.Kind.NOT_FOUND, e.kind());
        assertEquals("anchor_turn_id", e.field());
    }

    @Test
    void singleTurnSliceIsTheAnchorAlone() {
        ConversationDag g = ConversationDag.fromJson(dag(turn(1)));
        ObjectNode s = ContextSelector.select(g, id(1), PolicyConfig.DEFAULT);
        assertEquals(1, s.get("turns").size());
        assertEquals(0, s.get("edges").size());
        assertEquals(
                List.of(
                        "anchor_turn_id",
                        "turns",
                        "edges",
                        "policy_id",
                        "policy_params_hash",
                        "schema_version",
                        "slice_id"),
                iterable(s));
        assertEquals(
                "2026-01-01T00:00:00Z", s.get("turns").get(0).get("created_at").textValue());
    }

    private static List<String> iterable(ObjectNode n) {
        List<String> out = new java.util.ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static String fieldOf(ObjectNode d) {
        PolicyInputException e = assertThrows(PolicyInputException.class, () -> ConversationDag.fromJson(d));
        assertEquals(PolicyInputException.Kind.INVALID, e.kind());
        assertTrue(e.getMessage().startsWith(e.field() + ": "), e.getMessage());
        return e.field();
    }
}
