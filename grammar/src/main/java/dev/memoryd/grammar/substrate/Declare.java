package dev.memoryd.grammar.substrate;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Applies one declaration to a graph atomically, validating on the post-write state as the
 * substrate spec says: every placement of the declaration is recorded first (so a chunk and its
 * type membership can arrive together), sequences are auto-assigned on ordered scopes, then each
 * affected instance placement is checked against the union contract of its scope ({@code ordered},
 * {@code accepts} with type ambiguity, {@code required}, {@code unique}) and for name uniqueness.
 *
 * <p>On {@link Applied} the graph holds the new state and the result lists the chunk records that
 * changed (new files' contents) and the chunks removed. On any refusal the graph is restored
 * exactly as it was. Deterministic given (graph, declaration, now). Not thread-safe: the caller
 * owns the graph.
 *
 * <p>{@link #check} applies the same rules to chunk records that arrive whole (a merge's chunk
 * files), without recording them.
 *
 * <p>One declaration's run is {@link DeclareRun}'s job, the spec rules {@link SpecChecker}'s.
 */
public final class Declare {
    private Declare() {}

    public sealed interface Result {}

    /** Recorded: {@code put} are the new records of changed chunks, {@code removed} the ids removed. */
    public record Applied(List<ChunkRecord> put, List<String> removed) implements Result {
        public boolean changed() {
            return !put.isEmpty() || !removed.isEmpty();
        }
    }

    /** A spec rule failed: {@code rule} is ordered, accepts, required, unique or name. */
    public record Violation(String rule, String chunk, String chunkName, String scope, String message)
            implements Result {}

    /** Not a spec rule: an unknown reference, a derived chunk changed, a malformed combination. */
    public record Refusal(Kind kind, String field, String message) implements Result {
        public enum Kind {
            NOT_FOUND,
            INVALID,
            PROHIBITED
        }
    }

    /** How a {@link DeclareRun} stops early: with the refusal or violation it met. */
    static final class Stop extends Exception {
        final Result result;

        Stop(Result r) {
            super(null, null, false, false);
            this.result = r;
        }
    }

    public static Result apply(ChunkGraph g, Declaration d, String now) {
        Map<String, ChunkRecord> before = new LinkedHashMap<>();
        try {
            return new DeclareRun(g, d, now, before).run();
        } catch (Stop s) {
            undo(g, before);
            return s.result;
        }
    }

    /**
     * Checks chunk records that arrive whole rather than declared (the chunk files a merge
     * brings): whether the graph with every record of {@code put} recorded and every chunk of
     * {@code removed} gone still keeps the spec rules, judged as {@link #apply} judges a
     * declaration on its post-write state. The instance placements the change may affect (those
     * of the changed chunks, of the chunks typed by a removed one, and every instance of a changed
     * chunk or of a scope a placement entered or left) are checked against their scope's union
     * contract and for name uniqueness. Nothing is assigned: a placement without a seq on an
     * ordered scope is an {@code ordered} violation.
     *
     * <p>Returns the first violation, or null when every rule holds. Either way the graph is left
     * exactly as it was: the caller records the change when it is committed. An id in both
     * {@code put} and {@code removed} is put.
     */
    public static Violation check(ChunkGraph g, List<ChunkRecord> put, Collection<String> removed) {
        Map<String, ChunkRecord> before = new LinkedHashMap<>();
        for (String id : removed) {
            before.putIfAbsent(id, g.record(id));
        }
        for (ChunkRecord r : put) {
            before.putIfAbsent(r.id(), g.record(r.id()));
        }
        Set<String> dirtyScopes = new LinkedHashSet<>();
        Set<String> retyped = new LinkedHashSet<>();
        try {
            for (String id : removed) {
                if (!g.exists(id)) {
                    continue;
                }
                for (Placement m : g.members(id)) {
                    retyped.add(m.chunk());
                }
                for (Placement p : g.placementsOf(id)) {
                    dirtyScopes.add(p.scope());
                }
                g.remove(id);
            }
            for (ChunkRecord r : put) {
                Map<String, Placement> old = new HashMap<>();
                ChunkRecord was = g.record(r.id());
                if (was != null) {
                    was.placements().forEach(p -> old.put(p.scope(), p));
                }
                // As a declaration marks the scopes it places on or removes from, and no others.
                for (Placement p : r.placements()) {
                    if (!p.equals(old.remove(p.scope()))) {
                        dirtyScopes.add(p.scope());
                    }
                }
                dirtyScopes.addAll(old.keySet());
                g.put(r);
            }
            return new SpecChecker(g).check(before.keySet(), dirtyScopes, retyped);
        } finally {
            undo(g, before);
        }
    }

    private static void undo(ChunkGraph g, Map<String, ChunkRecord> before) {
        for (Map.Entry<String, ChunkRecord> e : before.entrySet()) {
            g.remove(e.getKey());
        }
        for (ChunkRecord r : before.values()) {
            if (r != null) {
                g.put(r);
            }
        }
    }

    static String label(Chunk c) {
        return c.name() == null ? c.id() : "'" + c.name() + "' (" + c.id() + ")";
    }

    /** The file of a declared chunk. */
    public static String fileOf(String id) {
        return ".slices/" + id + ".slice";
    }

    static Stop refuse(Refusal.Kind k, String field, String message) {
        return new Stop(new Refusal(k, field, message));
    }
}
