package dev.memoryd.daemon.substrate;

import dev.memoryd.grammar.substrate.ChunkGraph;
import dev.memoryd.grammar.substrate.Placement;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The stale derived chunks under a derivation scope: every chunk placed on the scope (either type)
 * or, transitively, on one of its instances ({@code summaries} holds {@code opus-4.6} as an
 * instance, which holds the summaries), in the graph's order (seq, then id) level by level.
 */
final class StaleListing {
    private StaleListing() {}

    /** The first {@code limit} stale ones, how many more there are, and how many derived chunks were judged. */
    record Found(List<StaleResult.Item> stale, int more, int derived) {}

    static Found under(ChunkGraph g, String scope, DerivedStaleness judge, ObjectId read, int limit)
            throws IOException {
        List<StaleResult.Item> stale = new ArrayList<>();
        int more = 0;
        int derived = 0;
        Set<String> seen = new LinkedHashSet<>(List.of(scope));
        Deque<String> todo = new ArrayDeque<>(List.of(scope));
        while (!todo.isEmpty()) {
            String s = todo.poll();
            for (String m : g.scope(List.of(s), List.of())) {
                if (!seen.add(m)) {
                    continue;
                }
                Placement on = g.placement(m, s);
                if (on != null && on.isInstance()) {
                    todo.add(m);
                }
                DerivedVerdict v = judge.of(g, read, g.chunk(m));
                if (v == null) {
                    continue;
                }
                derived++;
                if (v.stale()) {
                    if (stale.size() < limit) {
                        stale.add(new StaleResult.Item(g.chunk(m), v));
                    } else {
                        more++;
                    }
                }
            }
        }
        return new Found(stale, more, derived);
    }
}
