package dev.memoryd.grammar.substrate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Resolving a reference to a chunk in a {@link ChunkGraph}: by id, or by name path. An ambiguous
 * reference lists its candidates in id order, each with where it is placed.
 *
 * <p>Stateless; reads the graph only, under its owner's rules.
 */
final class References {
    private References() {}

    /**
     * Resolves a reference: a chunk id, or a name path {@code a/b/c} where {@code a} is a chunk
     * named so (a root-level one wins when several carry the name) and each next segment names a
     * chunk placed on the previous one.
     */
    static ChunkGraph.Resolution resolve(ChunkGraph g, String ref) {
        if (ref == null || ref.isEmpty()) {
            return new ChunkGraph.Resolution.Missing("empty reference");
        }
        if (g.exists(ref)) {
            return new ChunkGraph.Resolution.Found(ref);
        }
        String[] seg = ref.split("/", -1);
        Set<String> first = g.named(seg[0]);
        if (first.size() > 1) {
            Set<String> roots = new TreeSet<>();
            for (String id : first) {
                if (g.placementsOf(id).isEmpty()) {
                    roots.add(id);
                }
            }
            if (roots.size() == 1) {
                first = roots;
            }
        }
        if (first.isEmpty()) {
            return new ChunkGraph.Resolution.Missing("no chunk with id or name '" + seg[0] + "'");
        }
        if (first.size() > 1) {
            return ambiguous(g, seg[0], first);
        }
        String cur = first.iterator().next();
        for (int i = 1; i < seg.length; i++) {
            Set<String> next = g.named(cur, seg[i]);
            if (next.isEmpty()) {
                return new ChunkGraph.Resolution.Missing(
                        "no chunk named '" + seg[i] + "' placed on " + String.join("/", Arrays.copyOf(seg, i)));
            }
            if (next.size() > 1) {
                return ambiguous(g, String.join("/", Arrays.copyOf(seg, i + 1)), next);
            }
            cur = next.iterator().next();
        }
        return new ChunkGraph.Resolution.Found(cur);
    }

    private static ChunkGraph.Resolution ambiguous(ChunkGraph g, String what, Set<String> ids) {
        List<String> c = new ArrayList<>(new TreeSet<>(ids));
        List<String> where = new ArrayList<>();
        for (String id : c) {
            List<String> scopes = new ArrayList<>();
            for (Placement p : g.placementsOf(id)) {
                Chunk s = g.chunk(p.scope());
                scopes.add(s.name() != null ? s.name() : s.id());
            }
            where.add(id + (scopes.isEmpty() ? " (root)" : " (on " + String.join(", ", scopes) + ")"));
        }
        return new ChunkGraph.Resolution.Ambiguous(
                "'" + what + "' names " + c.size() + " chunks; use an id or a path" + " such as scope/name: "
                        + String.join("; ", where),
                c);
    }
}
