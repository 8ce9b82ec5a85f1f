package dev.memoryd.grammar.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An immutable, validated conversation DAG: turns keyed by id, edges given by each turn's
 * {@link Turn#parents()}.
 *
 * <p>Contract: turn ids are unique; every parent id names a turn of the DAG; the graph has
 * no cycle. The result does not depend on the order of the turns or of their parent lists.
 * Neighbour queries return ids in the order docs/DESIGN.md fixes for SlicePolicy v1:
 * {@link #parents} and {@link #children} in ascending id (several edge types between the
 * same pair yield the id once); {@link #siblings} per docs/DESIGN.md's definition (see there).
 *
 * <p>Thread-safety: immutable after construction; safe to share.
 */
public final class ConversationDag {
    private static final Comparator<Turn> SIBLING_ORDER =
            Comparator.comparingInt(Turn::trajectorySiblingOrder).thenComparing(Turn::id);

    private final TreeMap<String, Turn> turns = new TreeMap<>();
    private final Map<String, List<String>> parents = new HashMap<>();
    /** Children of each turn in ascending id. */
    private final Map<String, List<String>> children = new HashMap<>();
    /** Children of each turn in (trajectory_sibling_order, id) order. */
    private final Map<String, List<String>> childrenBySiblingOrder = new HashMap<>();

    private final List<Edge> edges;

    /** One parent → child edge; the SliceExport edge object of §6.1. */
    public record Edge(String parent, String child, EdgeType edgeType) {
        /** Orders by (parent, child, edge_type wire name), §6.2. */
        public static final Comparator<Edge> ORDER = Comparator.comparing(Edge::parent)
                .thenComparing(Edge::child)
                .thenComparing(e -> e.edgeType().wire());
    }

    private ConversationDag(Collection<Turn> input) {
        Map<String, Integer> index = new HashMap<>();
        int i = 0;
        for (Turn t : input) {
            if (t == null) {
                throw PolicyInputException.invalid("turns[" + i + "]", "must be a turn object");
            }
            if (turns.putIfAbsent(t.id(), t) != null) {
                throw PolicyInputException.invalid("turns[" + i + "].id", "duplicate turn id " + t.id());
            }
            index.put(t.id(), i++);
        }
        Map<String, TreeSet<String>> kids = new HashMap<>();
        List<Edge> all = new ArrayList<>();
        for (Turn t : turns.values()) {
            TreeSet<String> ps = new TreeSet<>();
            for (int j = 0; j < t.parents().size(); j++) {
                ParentRef p = t.parents().get(j);
                if (!turns.containsKey(p.id())) {
                    throw new PolicyInputException(
                            PolicyInputException.Kind.INVALID,
                            "turns[" + index.get(t.id()) + "].parents[" + j + "].id",
                            "unknown turn " + p.id());
                }
                ps.add(p.id());
                kids.computeIfAbsent(p.id(), k -> new TreeSet<>()).add(t.id());
                all.add(new Edge(p.id(), t.id(), p.edgeType()));
            }
            parents.put(t.id(), List.copyOf(ps));
        }
        for (Turn t : turns.values()) {
            TreeSet<String> ks = kids.get(t.id());
            List<String> asc = ks == null ? List.of() : List.copyOf(ks);
            children.put(t.id(), asc);
            List<Turn> bySibling = new ArrayList<>();
            for (String k : asc) {
                bySibling.add(turns.get(k));
            }
            bySibling.sort(SIBLING_ORDER);
            childrenBySiblingOrder.put(t.id(), bySibling.stream().map(Turn::id).toList());
        }
        all.sort(Edge.ORDER);
        edges = List.copyOf(all);
        rejectCycles(index);
    }

    /** Builds a DAG from turns in any order; a {@link PolicyInputException} names the offending {@code turns[i]} field. */
    public static ConversationDag of(Collection<Turn> turns) {
        return new ConversationDag(turns);
    }

    /**
     * Parses {@code {"turns": [turn, ...]}}, each turn as {@link Turn#fromJson} reads it;
     * unknown members are refused.
     */
    public static ConversationDag fromJson(JsonNode node) {
        StrictObject o = StrictObject.of(node, "");
        JsonNode ts = o.require("turns");
        if (!ts.isArray()) {
            throw PolicyInputException.invalid("turns", "must be an array");
        }
        o.rejectUnknown();
        List<Turn> list = new ArrayList<>();
        for (int i = 0; i < ts.size(); i++) {
            list.add(Turn.fromJson(ts.get(i), "turns[" + i + "]"));
        }
        return new ConversationDag(list);
    }

    private void rejectCycles(Map<String, Integer> index) {
        // Iterative three-colour DFS over child edges, roots in ascending id for a stable message.
        Map<String, Integer> colour = new HashMap<>(); // absent white, 1 grey, 2 black
        for (String start : turns.keySet()) {
            if (colour.containsKey(start)) {
                continue;
            }
            List<String> stack = new ArrayList<>();
            List<Integer> next = new ArrayList<>();
            stack.add(start);
            next.add(0);
            colour.put(start, 1);
            while (!stack.isEmpty()) {
                int top = stack.size() - 1;
                String node = stack.get(top);
                List<String> ks = children.get(node);
                int k = next.get(top);
                if (k < ks.size()) {
                    next.set(top, k + 1);
                    String c = ks.get(k);
                    Integer col = colour.get(c);
                    if (col == null) {
                        colour.put(c, 1);
                        stack.add(c);
                        next.add(0);
                    } else if (col == 1) {
                        throw PolicyInputException.invalid(
                                "turns[" + index.get(c) + "].parents", "cycle through turn " + c);
                    }
                } else {
                    colour.put(node, 2);
                    stack.remove(top);
                    next.remove(top);
                }
            }
        }
    }

    /** The turn with {@code id}, if any. */
    public Optional<Turn> turn(String id) {
        return Optional.ofNullable(turns.get(id));
    }

    /** All turns in ascending id. */
    public List<Turn> turns() {
        return List.copyOf(turns.values());
    }

    /** Number of turns. */
    public int size() {
        return turns.size();
    }

    /** All edges, sorted by (parent, child, edge_type). */
    public List<Edge> edges() {
        return edges;
    }

    /** Distinct parent ids of {@code id}, ascending; empty for an unknown id. */
    public List<String> parents(String id) {
        return parents.getOrDefault(id, List.of());
    }

    /** Distinct child ids of {@code id}, ascending; empty for an unknown id. */
    public List<String> children(String id) {
        return children.getOrDefault(id, List.of());
    }

    /**
     * The siblings of {@code id} as docs/DESIGN.md defines them: for each parent P of the turn in
     * ascending id, the first {@code maxPerParent} of P's other children in
     * ({@code trajectory_sibling_order}, id) order; the lists are concatenated and a turn
     * listed under an earlier parent is not listed again (first discovery wins). The cap is
     * applied to each parent's list before that de-duplication.
     */
    public List<String> siblings(String id, int maxPerParent) {
        Set<String> out = new LinkedHashSet<>();
        if (maxPerParent <= 0) {
            return List.of();
        }
        for (String p : parents(id)) {
            int taken = 0;
            for (String c : childrenBySiblingOrder.get(p)) {
                if (taken == maxPerParent) {
                    break;
                }
                if (c.equals(id)) {
                    continue;
                }
                out.add(c);
                taken++;
            }
        }
        return List.copyOf(out);
    }
}
