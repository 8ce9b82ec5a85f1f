package dev.memoryd.grammar.substrate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One {@link Declare#apply} of a declaration to a graph: resolves its references against the state
 * before it, records every change (snapshotting each touched chunk's record into {@code before}
 * first, for the undo), assigns sequences on ordered scopes, validates with a {@link SpecChecker},
 * and reports what changed. A refusal or violation is thrown as a {@link Declare.Stop}; the caller
 * then restores the graph from {@code before}.
 *
 * <p>Not thread-safe; one run per declaration, on a graph its caller owns.
 */
final class DeclareRun {
    final ChunkGraph g;
    final Declaration d;
    final String now;
    final Map<String, ChunkRecord> before;
    final Map<String, String> refs = new HashMap<>();
    final Set<String> newIds = new HashSet<>();
    final SpecChecker checker;

    DeclareRun(ChunkGraph g, Declaration d, String now, Map<String, ChunkRecord> before) {
        this.g = g;
        this.d = d;
        this.now = now;
        this.before = before;
        this.checker = new SpecChecker(g);
    }

    Declare.Result run() throws Declare.Stop {
        // 1. Resolve every reference against the state before the declaration.
        Set<String> updated = new HashSet<>();
        for (int i = 0; i < d.chunks().size(); i++) {
            Declaration.ChunkDecl c = d.chunks().get(i);
            String f = "chunks[" + i + "]";
            if (c.create()) {
                if (g.exists(c.id()) || !newIds.add(c.id())) {
                    throw Declare.refuse(Declare.Refusal.Kind.INVALID, f, f + ": id " + c.id() + " is already taken");
                }
                if (c.ref() != null && refs.putIfAbsent(c.ref(), c.id()) != null) {
                    throw Declare.refuse(
                            Declare.Refusal.Kind.INVALID, f + ".ref", f + ": ref '" + c.ref() + "' is used twice");
                }
            } else {
                Chunk old = g.chunk(c.id());
                if (old == null) {
                    throw Declare.refuse(Declare.Refusal.Kind.NOT_FOUND, f + ".id", f + ": no chunk " + c.id());
                }
                derivedGuard(old, f);
                if (!updated.add(c.id())) {
                    throw Declare.refuse(
                            Declare.Refusal.Kind.INVALID, f + ".id", f + ": chunk " + c.id() + " is updated twice");
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
                throw Declare.refuse(Declare.Refusal.Kind.INVALID, f, f + ": a chunk cannot be placed on itself");
            }
            if (g.exists(chunk)) {
                derivedGuard(g.chunk(chunk), f + ".chunk");
            }
            if (!placedPairs.add(chunk + " " + scope)) {
                throw Declare.refuse(
                        Declare.Refusal.Kind.INVALID, f, f + ": chunk " + chunk + " is placed on " + scope + " twice");
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
                throw Declare.refuse(
                        Declare.Refusal.Kind.NOT_FOUND,
                        f + ".chunk",
                        f + ": chunk " + chunk + " is new in this declaration; nothing to remove");
            }
            derivedGuard(g.chunk(chunk), f + ".chunk");
            if (updated.contains(chunk) || placedPairs.stream().anyMatch(s -> s.startsWith(chunk + " "))) {
                throw Declare.refuse(
                        Declare.Refusal.Kind.INVALID, f, f + ": chunk " + chunk + " is both changed and removed");
            }
            if (r.scope() == null) {
                removeChunks.add(chunk);
            } else {
                String scope = ref(r.scope(), f + ".scope");
                Placement p = g.placement(chunk, scope);
                if (p == null) {
                    throw Declare.refuse(
                            Declare.Refusal.Kind.NOT_FOUND, f, f + ": chunk " + chunk + " is not placed on " + scope);
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
                        new Chunk(c.id(), c.name(), c.spec(), c.body(), Declare.fileOf(c.id()), null, false, now, now),
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
                if (!Objects.equals(o.spec(), g.chunk(o.id()).spec())) {
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
                throw Declare.refuse(
                        Declare.Refusal.Kind.NOT_FOUND,
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
        Declare.Violation v = checker.check(touched, dirtyScopes, retyped);
        if (v != null) {
            throw new Declare.Stop(v);
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
                        new Chunk(c.id(), c.name(), c.spec(), c.body(), c.file(), c.section(), false, c.created(), now),
                        cur.placements());
                g.put(stamped);
                put.add(stamped);
            }
        }
        return new Declare.Applied(put, removed);
    }

    private String ref(String r, String field) throws Declare.Stop {
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
            throw Declare.refuse(Declare.Refusal.Kind.INVALID, field, field + ": " + a.message());
        }
        throw Declare.refuse(
                Declare.Refusal.Kind.NOT_FOUND,
                field,
                field + ": " + ((ChunkGraph.Resolution.Missing) res).message() + " (nor a ref of this declaration)");
    }

    private void derivedGuard(Chunk c, String field) throws Declare.Stop {
        if (c.derived()) {
            throw Declare.refuse(
                    Declare.Refusal.Kind.PROHIBITED,
                    field,
                    field + ": " + Declare.label(c) + " is derived from " + c.file()
                            + "; change it with write, not declare");
        }
    }
}
