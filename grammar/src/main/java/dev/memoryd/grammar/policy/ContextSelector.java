package dev.memoryd.grammar.policy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.jcs.Jcs;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;

/**
 * SlicePolicy v1 context selection: the turns of a {@link ConversationDag} most relevant to an
 * anchor turn, as the SliceExport of spec §6.1 ({@link SliceExport}, and its JSON form).
 *
 * <p>Contract: {@link #select} runs the expansion algorithm of spec §5 with the priority of
 * §4, {@code (phase_weight(phase) + salience × salience_weight) × distance_decay^distance},
 * and returns {@code {anchor_turn_id, turns, edges, policy_id, policy_params_hash,
 * schema_version, slice_id}} with {@code turns} sorted by id and {@code edges} sorted by
 * (parent, child, edge_type). The result is a pure function of (DAG, anchor, config): the
 * same inputs give equal trees, hence byte-identical Jackson and RFC 8785 (JCS)
 * serializations, whatever the order in which the DAG's turns or parent lists were given.
 * Invariants (§7): the anchor is selected; at most {@code max_nodes} turns; every selected
 * turn is within {@code max_radius} hops of the anchor; every edge joins two selected turns.
 *
 * <p>Where the spec is loose, this is the choice (docs/DESIGN.md's choices first):
 * <ol>
 * <li>A selected turn is expanded to its parents, then its children, then its siblings, each
 *     group in ascending turn id except siblings, which come in docs/DESIGN.md's order (for each
 *     parent in ascending id, that parent's other children by ({@code
 *     trajectory_sibling_order}, id)). {@code max_siblings_per_node} caps each parent's list
 *     <em>before</em> turns already visited are skipped, as {@code get_siblings(id, limit)}
 *     in §5.2 is called before the {@code visited} test; a turn listed under two parents is
 *     listed once (first discovery wins). {@code max_siblings_per_node = 0} behaves like
 *     {@code include_siblings = false}.</li>
 * <li>As in §5.2, a turn is marked visited when it is pushed, so it keeps the distance (and
 *     priority) of its first discovery even if a shorter path is found later; "distance" in
 *     the invariants is that discovery distance, which is never less than the hop count of a
 *     shortest parent/child/sibling path (siblings counting 0 hops).</li>
 * <li>When {@code distance + 1 > max_radius} the popped turn is selected but not expanded at
 *     all — not to siblings either, even though siblings would keep its distance — exactly
 *     as the {@code continue} of §5.2 is placed.</li>
 * <li>Priorities are IEEE doubles; {@code distance_decay^distance} is
 *     {@link StrictMath#pow} (fdlibm; bit-reproducible on every JVM; {@code 0^0 = 1}).
 *     "Equal priority" (§5.3) is IEEE {@code ==} (so {@code -0.0} equals {@code 0.0}); ties go
 *     to the lower distance, then to the lower turn id. Turn ids are lowercase canonical UUID
 *     strings, so "UUID lexicographic" order is {@link String#compareTo}, as is the JCS key
 *     order.</li>
 * <li>{@code edges} holds every DAG edge whose parent and child are both selected (the induced
 *     subgraph, so also edges along which nothing was discovered, and one edge per edge type
 *     when a pair is linked by several), not only the edges of discovery.</li>
 * <li>Turns are exported with the §6.1 members only (not {@code parents}); {@code created_at}
 *     keeps the form it was given in: integer epoch seconds (the §6.1 example) or ISO 8601
 *     UTC with {@code Z} (docs/DESIGN.md). It is no part of {@code slice_id}.</li>
 * <li>{@code policy_params_hash} = xxHash64 (seed 0, 16 lowercase hex digits) of the JCS form
 *     of the appendix configuration object ({@link PolicyConfig#paramsHash()});
 *     {@code slice_id} = xxHash64 of the JCS form of {@code [anchor, [sorted turn ids], [sorted
 *     edges as {parent, child, edge_type}], policy_id, policy_params_hash, schema_version]}.</li>
 * <li>An anchor id the DAG does not hold is a {@link PolicyInputException} of kind
 *     {@code NOT_FOUND} on field {@code anchor_turn_id}; it is never an empty slice.</li>
 * </ol>
 *
 * <p>Thread-safety: stateless; safe to call concurrently.
 */
public final class ContextSelector {
    /** {@code policy_id} of every slice. */
    public static final String POLICY_ID = PolicyConfig.POLICY_ID;
    /** {@code schema_version} of every slice (§10.1). */
    public static final String SCHEMA_VERSION = "1.0.0";

    private ContextSelector() {}

    /** One selected turn, with the distance and priority it was selected at. */
    record Selected(Turn turn, int distance, double priority) {}

    /** A frontier entry; {@link #ORDER} puts the next turn to pop first. */
    private record Candidate(Turn turn, int distance, double priority) {
        /** Higher priority first (IEEE comparison), then lower distance, then lower id. */
        static final Comparator<Candidate> ORDER = (a, b) -> {
            if (a.priority != b.priority) {
                return a.priority > b.priority ? -1 : 1;
            }
            if (a.distance != b.distance) {
                return a.distance < b.distance ? -1 : 1;
            }
            return a.turn.id().compareTo(b.turn.id());
        };
    }

    /**
     * Selects the context of {@code anchorTurnId} under {@code config} and returns the
     * SliceExport object (§6.1), members in the spec's order: {@link #export}'s JSON form.
     *
     * @throws PolicyInputException {@code NOT_FOUND} when the anchor is not in {@code dag}
     */
    public static ObjectNode select(ConversationDag dag, String anchorTurnId, PolicyConfig config) {
        return export(dag, anchorTurnId, config).toJson();
    }

    /**
     * Selects the context of {@code anchorTurnId} under {@code config}: the SliceExport (§6.1) as a
     * value.
     *
     * @throws PolicyInputException {@code NOT_FOUND} when the anchor is not in {@code dag}
     */
    public static SliceExport export(ConversationDag dag, String anchorTurnId, PolicyConfig config) {
        List<Selected> order = run(dag, anchorTurnId, config);
        TreeSet<String> ids = new TreeSet<>();
        List<Turn> turns = new ArrayList<>();
        for (Selected s : order) {
            ids.add(s.turn().id());
        }
        for (String id : ids) {
            turns.add(dag.turn(id).orElseThrow());
        }
        // The edges among the selection, found from each selected child's own parents (not by a
        // scan of the whole DAG, which made a query cost grow with the conversation).
        List<ConversationDag.Edge> edges = new ArrayList<>();
        for (Turn t : turns) {
            for (ParentRef p : t.parents()) {
                if (ids.contains(p.id())) {
                    edges.add(new ConversationDag.Edge(p.id(), t.id(), p.edgeType()));
                }
            }
        }
        edges.sort(ConversationDag.Edge.ORDER);
        String paramsHash = config.paramsHash();
        return new SliceExport(
                anchorTurnId, turns, edges, paramsHash, sliceId(anchorTurnId, List.copyOf(ids), edges, paramsHash));
    }

    /** The §5 algorithm; returns the selected turns in selection (pop) order. */
    static List<Selected> run(ConversationDag dag, String anchorTurnId, PolicyConfig config) {
        Turn anchor = dag.turn(anchorTurnId)
                .orElseThrow(() -> new PolicyInputException(
                        PolicyInputException.Kind.NOT_FOUND, "anchor_turn_id", "unknown turn " + anchorTurnId));
        List<Selected> selected = new ArrayList<>();
        Set<String> visited = new HashSet<>();
        PriorityQueue<Candidate> frontier = new PriorityQueue<>(Candidate.ORDER);
        visited.add(anchor.id());
        frontier.add(new Candidate(anchor, 0, priority(anchor, 0, config)));
        while (!frontier.isEmpty() && selected.size() < config.maxNodes()) {
            Candidate c = frontier.poll();
            if (c.distance > config.maxRadius()) {
                continue;
            }
            selected.add(new Selected(c.turn, c.distance, c.priority));
            if ((long) c.distance + 1 > config.maxRadius()) {
                continue;
            }
            int next = c.distance + 1;
            for (String id : dag.parents(c.turn.id())) {
                push(dag, id, next, config, visited, frontier);
            }
            for (String id : dag.children(c.turn.id())) {
                push(dag, id, next, config, visited, frontier);
            }
            if (config.includeSiblings()) {
                for (String id : dag.siblings(c.turn.id(), config.maxSiblingsPerNode())) {
                    push(dag, id, c.distance, config, visited, frontier);
                }
            }
        }
        return selected;
    }

    private static void push(
            ConversationDag dag,
            String id,
            int distance,
            PolicyConfig config,
            Set<String> visited,
            PriorityQueue<Candidate> frontier) {
        if (visited.add(id)) {
            Turn t = dag.turn(id).orElseThrow();
            frontier.add(new Candidate(t, distance, priority(t, distance, config)));
        }
    }

    /** §4: {@code (phase_weight + salience × salience_weight) × distance_decay^distance}, IEEE doubles. */
    static double priority(Turn turn, int distance, PolicyConfig config) {
        double base = config.phaseWeights().weight(turn.phase()) + turn.salience() * config.salienceWeight();
        return base * StrictMath.pow(config.distanceDecay(), distance);
    }

    /**
     * {@code slice_id}: xxHash64 (seed 0, 16 lowercase hex digits) of the JCS form of
     * {@code [anchor, sortedTurnIds, sortedEdges, policy_id, paramsHash, schema_version]}.
     * The caller passes ids and edges already sorted (§6.2).
     */
    static String sliceId(
            String anchor, List<String> sortedTurnIds, List<ConversationDag.Edge> sortedEdges, String paramsHash) {
        ArrayNode canonical = JsonNodeFactory.instance.arrayNode();
        canonical.add(anchor);
        ArrayNode ids = canonical.addArray();
        sortedTurnIds.forEach(ids::add);
        ArrayNode es = canonical.addArray();
        sortedEdges.forEach(e -> es.add(SliceExport.edgeJson(e)));
        canonical.add(POLICY_ID);
        canonical.add(paramsHash);
        canonical.add(SCHEMA_VERSION);
        return XxHash64.hex(XxHash64.hash(Jcs.canonicalBytes(canonical), 0L));
    }
}
