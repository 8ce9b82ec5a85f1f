package dev.memoryd.grammar.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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

    private static final class Stop extends Exception {
        final Result result;

        Stop(Result r) {
            super(null, null, false, false);
            this.result = r;
        }
    }

    public static Result apply(ChunkGraph g, Declaration d, String now) {
        Map<String, ChunkRecord> before = new LinkedHashMap<>();
        try {
            return new Run(g, d, now, before).run();
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
            return new Checker(g).check(before.keySet(), dirtyScopes, retyped);
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

    private static final class Run {
        final ChunkGraph g;
        final Declaration d;
        final String now;
        final Map<String, ChunkRecord> before;
        final Map<String, String> refs = new HashMap<>();
        final Set<String> newIds = new HashSet<>();
        final Checker checker;

        Run(ChunkGraph g, Declaration d, String now, Map<String, ChunkRecord> before) {
            this.g = g;
            this.d = d;
            this.now = now;
            this.before = before;
            this.checker = new Checker(g);
        }

        Result run() throws Stop {
            // 1. Resolve every reference against the state before the declaration.
            Set<String> updated = new HashSet<>();
            for (int i = 0; i < d.chunks().size(); i++) {
                Declaration.ChunkDecl c = d.chunks().get(i);
                String f = "chunks[" + i + "]";
                if (c.create()) {
                    if (g.exists(c.id()) || !newIds.add(c.id())) {
                        throw refuse(Refusal.Kind.INVALID, f, f + ": id " + c.id() + " is already taken");
                    }
                    if (c.ref() != null && refs.putIfAbsent(c.ref(), c.id()) != null) {
                        throw refuse(Refusal.Kind.INVALID, f + ".ref", f + ": ref '" + c.ref() + "' is used twice");
                    }
                } else {
                    Chunk old = g.chunk(c.id());
                    if (old == null) {
                        throw refuse(Refusal.Kind.NOT_FOUND, f + ".id", f + ": no chunk " + c.id());
                    }
                    derivedGuard(old, f);
                    if (!updated.add(c.id())) {
                        throw refuse(Refusal.Kind.INVALID, f + ".id", f + ": chunk " + c.id() + " is updated twice");
                    }
                }
            }
            List<Placement> placements = new ArrayList<>();
            Set<String> placedPairs = new HashSet<>();
            for (int i = 0; i < d.placements().size(); i++) {
                Declaration.PlacementDecl p = d.placements().get(i);
                String f = "placements[" + i + "]";
                String chunk = ref(p.chunk(), f + ".chunk");
                String scope = ref(p.scope(), f + ".scope");
                if (chunk.equals(scope)) {
                    throw refuse(Refusal.Kind.INVALID, f, f + ": a chunk cannot be placed on itself");
                }
                if (g.exists(chunk)) {
                    derivedGuard(g.chunk(chunk), f + ".chunk");
                }
                if (!placedPairs.add(chunk + " " + scope)) {
                    throw refuse(Refusal.Kind.INVALID, f, f + ": chunk " + chunk + " is placed on " + scope + " twice");
                }
                placements.add(new Placement(chunk, scope, p.type(), p.seq()));
            }
            List<String> removeChunks = new ArrayList<>();
            List<Placement> removePlacements = new ArrayList<>();
            for (int i = 0; i < d.removals().size(); i++) {
                Declaration.Removal r = d.removals().get(i);
                String f = "removals[" + i + "]";
                String chunk = ref(r.chunk(), f + ".chunk");
                if (!g.exists(chunk)) {
                    throw refuse(
                            Refusal.Kind.NOT_FOUND,
                            f + ".chunk",
                            f + ": chunk " + chunk + " is new in this declaration; nothing to remove");
                }
                derivedGuard(g.chunk(chunk), f + ".chunk");
                if (updated.contains(chunk) || placedPairs.stream().anyMatch(s -> s.startsWith(chunk + " "))) {
                    throw refuse(Refusal.Kind.INVALID, f, f + ": chunk " + chunk + " is both changed and removed");
                }
                if (r.scope() == null) {
                    removeChunks.add(chunk);
                } else {
                    String scope = ref(r.scope(), f + ".scope");
                    Placement p = g.placement(chunk, scope);
                    if (p == null) {
                        throw refuse(Refusal.Kind.NOT_FOUND, f, f + ": chunk " + chunk + " is not placed on " + scope);
                    }
                    removePlacements.add(p);
                }
            }

            // 2. Record everything (snapshots first, for the undo).
            Set<String> touched = new LinkedHashSet<>();
            d.chunks().forEach(c -> touched.add(c.id()));
            placements.forEach(p -> touched.add(p.chunk()));
            removePlacements.forEach(p -> touched.add(p.chunk()));
            touched.addAll(removeChunks);
            for (String t : touched) {
                before.put(t, g.record(t));
            }
            Set<String> dirtyScopes = new LinkedHashSet<>();
            Set<String> retyped = new LinkedHashSet<>(); // chunks whose types changed without being touched
            for (Declaration.ChunkDecl c : d.chunks()) {
                if (c.create()) {
                    g.put(new ChunkRecord(
                            new Chunk(c.id(), c.name(), c.spec(), c.body(), fileOf(c.id()), null, false, now, now),
                            List.of()));
                } else {
                    ChunkRecord r = g.record(c.id());
                    Chunk o = r.chunk();
                    g.put(new ChunkRecord(
                            new Chunk(
                                    o.id(),
                                    c.nameSet() ? c.name() : o.name(),
                                    c.spec() != null ? c.spec() : o.spec(),
                                    c.body() != null ? c.body() : o.body(),
                                    o.file(),
                                    o.section(),
                                    false,
                                    o.created(),
                                    o.updated()),
                            r.placements()));
                    if (!java.util.Objects.equals(o.spec(), g.chunk(o.id()).spec())) {
                        dirtyScopes.add(o.id());
                    }
                }
            }
            for (Placement p : placements) {
                ChunkRecord r = g.record(p.chunk());
                List<Placement> ps = new ArrayList<>();
                boolean replaced = false;
                for (Placement q : r.placements()) {
                    if (q.scope().equals(p.scope())) {
                        // Placing again without a seq keeps the position it had.
                        ps.add(p.seq() == null && q.seq() != null ? p.withSeq(q.seq()) : p);
                        replaced = true;
                    } else {
                        ps.add(q);
                    }
                }
                if (!replaced) {
                    ps.add(p);
                }
                g.put(new ChunkRecord(r.chunk(), ps));
                dirtyScopes.add(p.scope());
            }
            for (Placement p : removePlacements) {
                ChunkRecord r = g.record(p.chunk());
                g.put(new ChunkRecord(
                        r.chunk(),
                        r.placements().stream()
                                .filter(q -> !q.scope().equals(p.scope()))
                                .toList()));
                dirtyScopes.add(p.scope());
            }
            for (String id : removeChunks) {
                for (Placement m : g.members(id)) {
                    retyped.add(m.chunk());
                }
                for (Placement p : g.placementsOf(id)) {
                    dirtyScopes.add(p.scope());
                }
                g.remove(id);
            }
            for (int i = 0; i < placements.size(); i++) {
                if (!g.exists(placements.get(i).scope())) {
                    throw refuse(
                            Refusal.Kind.NOT_FOUND,
                            "placements[" + i + "].scope",
                            "placements[" + i + "]: scope " + placements.get(i).scope()
                                    + " is removed by this declaration");
                }
            }

            // 3. Sequences: omitted on an ordered scope means the next one, in declaration order.
            Map<String, Long> next = new HashMap<>();
            for (Placement p : placements) {
                Placement cur = g.placement(p.chunk(), p.scope());
                if (p.isInstance()
                        && cur != null
                        && cur.seq() == null
                        && checker.contract(p.scope()).ordered()) {
                    long seq = next.computeIfAbsent(p.scope(), s -> g.maxSeq(s) + 1);
                    next.put(p.scope(), seq + 1);
                    ChunkRecord r = g.record(p.chunk());
                    g.put(new ChunkRecord(
                            r.chunk(),
                            r.placements().stream()
                                    .map(q -> q.scope().equals(p.scope()) ? q.withSeq(seq) : q)
                                    .toList()));
                }
            }

            // 4. Validate every instance placement whose outcome may have changed.
            Violation v = checker.check(touched, dirtyScopes, retyped);
            if (v != null) {
                throw new Stop(v);
            }

            // 5. What changed: records that differ from before (stamped now), and removals.
            List<ChunkRecord> put = new ArrayList<>();
            List<String> removed = new ArrayList<>();
            for (String t : touched) {
                ChunkRecord old = before.get(t);
                ChunkRecord cur = g.record(t);
                if (cur == null) {
                    if (old != null) {
                        removed.add(t);
                    }
                } else if (old == null || !old.equals(cur)) {
                    Chunk c = cur.chunk();
                    ChunkRecord stamped = new ChunkRecord(
                            new Chunk(
                                    c.id(),
                                    c.name(),
                                    c.spec(),
                                    c.body(),
                                    c.file(),
                                    c.section(),
                                    false,
                                    c.created(),
                                    now),
                            cur.placements());
                    g.put(stamped);
                    put.add(stamped);
                }
            }
            return new Applied(put, removed);
        }

        private String ref(String r, String field) throws Stop {
            String id = refs.get(r);
            if (id != null) {
                return id;
            }
            if (newIds.contains(r) || g.exists(r)) {
                return r;
            }
            ChunkGraph.Resolution res = g.resolve(r);
            if (res instanceof ChunkGraph.Resolution.Found f) {
                return f.id();
            }
            if (res instanceof ChunkGraph.Resolution.Ambiguous a) {
                throw refuse(Refusal.Kind.INVALID, field, field + ": " + a.message());
            }
            throw refuse(
                    Refusal.Kind.NOT_FOUND,
                    field,
                    field + ": " + ((ChunkGraph.Resolution.Missing) res).message()
                            + " (nor a ref of this declaration)");
        }

        private void derivedGuard(Chunk c, String field) throws Stop {
            if (c.derived()) {
                throw refuse(
                        Refusal.Kind.PROHIBITED,
                        field,
                        field + ": " + label(c) + " is derived from " + c.file()
                                + "; change it with write, not declare");
            }
        }
    }

    /**
     * The spec rules over one graph state: which instance placements a change may affect, and
     * whether each still holds. Contracts are cached, so one checker serves one state only.
     */
    private static final class Checker {
        final ChunkGraph g;
        final Map<String, Contract> contracts = new HashMap<>();

        Checker(ChunkGraph g) {
            this.g = g;
        }

        /**
         * Checks, on the graph as it is now, every instance placement whose outcome may have
         * changed: those of the {@code touched} and {@code retyped} chunks, and all instances of
         * the touched chunks and {@code dirtyScopes} (deeper through propagating archetypes).
         * Returns the first violation, or null.
         */
        Violation check(Set<String> touched, Set<String> dirtyScopes, Set<String> retyped) {
            Set<String> pairs = new LinkedHashSet<>();
            List<Placement> check = new ArrayList<>();
            Set<String> chunkSide = new LinkedHashSet<>(touched);
            chunkSide.addAll(retyped);
            for (String c : chunkSide) {
                for (Placement p : g.placementsOf(c)) {
                    if (p.isInstance() && pairs.add(p.chunk() + " " + p.scope())) {
                        check.add(p);
                    }
                }
            }
            // Scopes whose contract may have changed: re-check all their instances. A change
            // reaches further down only through a propagating archetype.
            Deque<String> todo = new ArrayDeque<>();
            for (String t : touched) {
                if (g.exists(t)) {
                    todo.add(t);
                }
            }
            todo.addAll(dirtyScopes);
            todo.addAll(retyped);
            Set<String> seen = new HashSet<>();
            while (!todo.isEmpty()) {
                String s = todo.removeFirst();
                if (!seen.add(s) || !g.exists(s)) {
                    continue;
                }
                boolean constrained = !contract(s).isEmpty();
                boolean deeper = g.propagatesBelow(s);
                if (!constrained && !deeper) {
                    continue;
                }
                for (Placement m : g.members(s)) {
                    if (!m.isInstance()) {
                        continue;
                    }
                    if (constrained && pairs.add(m.chunk() + " " + m.scope())) {
                        check.add(m);
                    }
                    if (deeper) {
                        todo.add(m.chunk());
                    }
                }
            }
            Map<String, Map<JsonNode, List<String>>> uniqueValues = new HashMap<>();
            for (Placement p : check) {
                Violation v = validate(p, uniqueValues);
                if (v != null) {
                    return v;
                }
            }
            return null;
        }

        private Violation validate(Placement p, Map<String, Map<JsonNode, List<String>>> uniqueValues) {
            Chunk c = g.chunk(p.chunk());
            Chunk s = g.chunk(p.scope());
            String on = " on " + label(s);
            if (c.name() != null) {
                List<String> same = g.instancesNamed(p.scope(), c.name());
                if (same.size() > 1) {
                    return violation(
                            "name",
                            c,
                            p,
                            "name '" + c.name() + "' is taken" + on + " by another instance ("
                                    + String.join(", ", new TreeSet<>(same)) + ")");
                }
            }
            Contract k = contract(p.scope());
            if (k.isEmpty()) {
                return null;
            }
            String from = " (contract of "
                    + String.join(
                            ", ",
                            k.sources().stream().map(x -> label(g.chunk(x))).toList()) + ")";
            if (k.ordered() && p.seq() == null) {
                return violation("ordered", c, p, label(c) + " has no seq" + on + ", which is ordered" + from);
            }
            for (String key : k.required()) {
                if (!c.body().has(key)) {
                    return violation("required", c, p, label(c) + " lacks body key '" + key + "' required" + on + from);
                }
            }
            if (!k.accepts().isEmpty()) {
                Set<String> types = g.typesOf(c.id());
                Set<String> matched = new TreeSet<>();
                List<String> names = new ArrayList<>();
                for (Contract.TypeRef t : k.accepts()) {
                    names.add(t.name());
                    for (String r : t.resolved()) {
                        if (types.contains(r)) {
                            matched.add(r);
                        }
                    }
                }
                if (matched.isEmpty()) {
                    return violation(
                            "accepts",
                            c,
                            p,
                            label(c) + " is not an instance of any type accepted" + on + ": " + names + from);
                }
                if (matched.size() > 1) {
                    return violation(
                            "accepts",
                            c,
                            p,
                            label(c) + " is an instance of " + matched.size()
                                    + " types accepted" + on + " ("
                                    + String.join(
                                            ", ",
                                            matched.stream()
                                                    .map(x -> label(g.chunk(x)))
                                                    .toList()) + "): type ambiguity" + from);
                }
            }
            for (String key : k.unique()) {
                JsonNode v = c.body().get(key);
                if (v == null) {
                    continue;
                }
                Map<JsonNode, List<String>> values = uniqueValues.computeIfAbsent(p.scope() + "\u0000" + key, x -> {
                    Map<JsonNode, List<String>> m = new HashMap<>();
                    for (Placement q : g.members(p.scope())) {
                        JsonNode qv = q.isInstance() ? g.chunk(q.chunk()).body().get(key) : null;
                        if (qv != null) {
                            m.computeIfAbsent(qv, y -> new ArrayList<>()).add(q.chunk());
                        }
                    }
                    return m;
                });
                List<String> holders = values.getOrDefault(v, List.of());
                if (holders.size() > 1) {
                    List<String> others = new ArrayList<>(new TreeSet<>(holders));
                    others.remove(c.id());
                    return violation(
                            "unique",
                            c,
                            p,
                            label(c) + " has body." + key + " = " + v + ", already held" + on + " by "
                                    + String.join(", ", others) + from);
                }
            }
            return null;
        }

        private Contract contract(String scope) {
            return contracts.computeIfAbsent(scope, g::contractOf);
        }

        private Violation violation(String rule, Chunk c, Placement p, String message) {
            return new Violation(rule, c.id(), c.name(), p.scope(), rule + ": " + message);
        }
    }

    static String label(Chunk c) {
        return c.name() == null ? c.id() : "'" + c.name() + "' (" + c.id() + ")";
    }

    /** The file of a declared chunk. */
    public static String fileOf(String id) {
        return ".slices/" + id + ".slice";
    }

    private static Stop refuse(Refusal.Kind k, String field, String message) {
        return new Stop(new Refusal(k, field, message));
    }
}
