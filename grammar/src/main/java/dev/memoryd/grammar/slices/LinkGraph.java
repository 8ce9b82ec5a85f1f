package dev.memoryd.grammar.slices;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The typed links among a set of slices, explorable with or without inference.
 *
 * <p>Contract: the graph holds the stated edges: for each slice, each {@code links[]} entry
 * {@code {rel, to}} and its {@code derived_from.id} (as {@code derived_from}). Targets are
 * kept as written: a relative-path target is a node of its own unless the caller resolves
 * it to an id first ({@link #ofEdges}). Relation names outside the {@link Relations} table
 * are kept but never inferred from.
 *
 * <p>{@link #explore} without inference returns the stated links from a node. With
 * inference it also returns, per the table:
 * <ul>
 * <li>inverse: {@code B r A} stated gives {@code A inverse(r) B} (this is also how
 *     {@code see_also}, its own inverse, is symmetric);</li>
 * <li>transitive: for a transitive {@code r}, every node reachable from A over {@code r}
 *     edges (stated or inverse-inferred) gives {@code A r X} with the intermediate nodes
 *     of the shortest path in {@code via}.</li>
 * </ul>
 * Traversal is breadth-first with neighbours in ascending id order, so {@code via} is the
 * shortest path and, among equally short ones, the first in that order. Each node is
 * visited once per relation, so cycles terminate; the explored node itself is never an
 * inferred target (a stated self-link is still returned). A stated link is never also
 * reported as inferred.
 *
 * <p>Order of results: by relation name, then by hop count ({@code via} size), then by
 * target. Immutable and thread-safe.
 */
public final class LinkGraph {

    /**
     * A stated edge.
     *
     * @param from source slice id
     * @param rel  relation name as written
     * @param to   target id or path as written
     */
    public record Edge(String from, String rel, String to) {}

    /**
     * A link from the explored node.
     *
     * @param from     the explored node
     * @param rel      relation name
     * @param to       target
     * @param inferred false for a stated link
     * @param via      intermediate nodes of a transitive inference, in path order (empty
     *                 for stated and inverse/symmetric links)
     */
    public record ExploredLink(String from, String rel, String to, boolean inferred, List<String> via) {
        public ExploredLink {
            via = List.copyOf(via);
        }
    }

    private static final Comparator<ExploredLink> ORDER = Comparator.comparing(ExploredLink::rel)
            .thenComparingInt(l -> l.via().size())
            .thenComparing(ExploredLink::to);

    private final List<Edge> edges;
    /** from → rel → targets, stated only. */
    private final Map<String, Map<String, TreeSet<String>>> stated = new HashMap<>();
    /** from → rel → targets, stated plus inverse-inferred. */
    private final Map<String, Map<String, TreeSet<String>>> closed = new HashMap<>();

    private LinkGraph(Collection<Edge> edges) {
        this.edges = List.copyOf(new LinkedHashSet<>(edges));
        for (Edge e : this.edges) {
            put(stated, e.from(), e.rel(), e.to());
            put(closed, e.from(), e.rel(), e.to());
            Relations.of(e.rel()).ifPresent(r -> put(closed, e.to(), r.inverse(), e.from()));
        }
    }

    private static void put(Map<String, Map<String, TreeSet<String>>> m, String from, String rel, String to) {
        m.computeIfAbsent(from, k -> new HashMap<>())
                .computeIfAbsent(rel, k -> new TreeSet<>())
                .add(to);
    }

    /** A graph of the stated links of {@code slices} ({@code slice:} mappings; ones without an id are skipped). */
    public static LinkGraph of(Collection<JsonNode> slices) {
        List<Edge> es = new ArrayList<>();
        for (JsonNode s : slices) {
            JsonNode id = s == null ? null : s.get("id");
            if (id == null || !id.isValueNode() || id.asText().isBlank()) {
                continue;
            }
            JsonNode links = s.get("links");
            if (links != null && links.isArray()) {
                for (JsonNode l : links) {
                    JsonNode rel = l.get("rel");
                    JsonNode to = l.get("to");
                    if (rel != null
                            && rel.isTextual()
                            && to != null
                            && to.isValueNode()
                            && !to.asText().isBlank()) {
                        es.add(new Edge(id.asText(), rel.asText(), to.asText()));
                    }
                }
            }
            JsonNode df = s.path("derived_from").get("id");
            if (df != null && df.isValueNode() && !df.asText().isBlank()) {
                es.add(new Edge(id.asText(), "derived_from", df.asText()));
            }
        }
        return new LinkGraph(es);
    }

    /** A graph of the given edges (duplicates collapse). */
    public static LinkGraph ofEdges(Collection<Edge> edges) {
        return new LinkGraph(edges);
    }

    /** The stated edges, duplicates removed, in insertion order. */
    public List<Edge> edges() {
        return edges;
    }

    /**
     * The links from {@code id}, only those named {@code rel} if given, stated only or also
     * inferred (see the class comment for the rules and the order).
     */
    public List<ExploredLink> explore(String id, Optional<String> rel, boolean infer) {
        Map<String, Map<String, TreeSet<String>>> adj = infer ? closed : stated;
        Map<String, TreeSet<String>> from = adj.getOrDefault(id, Map.of());
        Set<String> rels = new TreeSet<>(from.keySet());
        rel.ifPresent(r -> rels.retainAll(Set.of(r)));
        List<ExploredLink> out = new ArrayList<>();
        for (String r : rels) {
            Set<String> direct = stated.getOrDefault(id, Map.of()).getOrDefault(r, new TreeSet<>());
            for (String to : direct) {
                out.add(new ExploredLink(id, r, to, false, List.of()));
            }
            if (!infer) {
                continue;
            }
            boolean transitive =
                    Relations.of(r).map(Relations.Relation::transitive).orElse(false);
            // Breadth-first over r-edges; parent pointers give the shortest path.
            Map<String, String> parent = new TreeMap<>();
            Set<String> seen = new java.util.HashSet<>();
            seen.add(id);
            Deque<String> queue = new ArrayDeque<>();
            queue.add(id);
            while (!queue.isEmpty()) {
                String n = queue.poll();
                for (String next : adj.getOrDefault(n, Map.of()).getOrDefault(r, new TreeSet<>())) {
                    if (!seen.add(next)) {
                        continue;
                    }
                    parent.put(next, n);
                    List<String> via = new ArrayList<>();
                    for (String p = n; !p.equals(id); p = parent.get(p)) {
                        via.add(0, p);
                    }
                    if (!(via.isEmpty() && direct.contains(next))) {
                        out.add(new ExploredLink(id, r, next, true, via));
                    }
                    if (transitive) {
                        queue.add(next);
                    }
                }
                if (!transitive) {
                    break;
                }
            }
        }
        out.sort(ORDER);
        return out;
    }
}
