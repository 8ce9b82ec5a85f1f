package dev.memoryd.grammar.substrate;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
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
 * The current state of the field: chunks and their placements, indexed both ways (a chunk's own
 * placements, a scope's members) and by name, so scope reads and write validation do not scan.
 *
 * <p>Removal is logical: a removed chunk leaves the graph, and with it every placement it makes;
 * placements other chunks make onto it stay recorded (their files still name it) but are
 * invisible to every read, exactly as if they were gone. Putting the chunk back (an undo) makes
 * them visible again.
 *
 * <p>Mutable and not thread-safe: one owner writes it; readers of a shared graph synchronize.
 */
public final class ChunkGraph {
    private final Map<String, Chunk> chunks = new HashMap<>();
    /** chunk → scope → placement (the chunk's own placements, in declaration order). */
    private final Map<String, Map<String, Placement>> out = new HashMap<>();
    /** scope → chunk → placement (the scope's members). */
    private final Map<String, Map<String, Placement>> in = new HashMap<>();
    /** name → ids of chunks carrying it. */
    private final Map<String, Set<String>> byName = new HashMap<>();
    /** scope → name → ids of its members (any placement type) carrying that name. */
    private final Map<String, Map<String, Set<String>>> memberNames = new HashMap<>();

    public int size() {
        return chunks.size();
    }

    public boolean exists(String id) {
        return id != null && chunks.containsKey(id);
    }

    public Chunk chunk(String id) {
        return chunks.get(id);
    }

    public Collection<Chunk> chunks() {
        return chunks.values();
    }

    /** The chunk with its own placements (dangling ones included, as its file holds them), or null. */
    public ChunkRecord record(String id) {
        Chunk c = chunks.get(id);
        if (c == null) {
            return null;
        }
        Map<String, Placement> ps = out.get(id);
        return new ChunkRecord(c, ps == null ? List.of() : new ArrayList<>(ps.values()));
    }

    /** Adds or replaces a chunk and all its own placements. */
    public void put(ChunkRecord r) {
        Chunk c = r.chunk();
        if (c.equals(chunks.get(c.id())) && samePlacements(c.id(), r.placements())) {
            // A memory file is derived again after every write to it, and most of its chunks come
            // out as they were: re-indexing them showed in the writer's profile.
            return;
        }
        remove(r.id());
        chunks.put(c.id(), c);
        if (c.name() != null) {
            byName.computeIfAbsent(c.name(), k -> new HashSet<>()).add(c.id());
        }
        Map<String, Placement> mine = new LinkedHashMap<>();
        for (Placement p : r.placements()) {
            mine.put(p.scope(), p);
            in.computeIfAbsent(p.scope(), k -> new HashMap<>()).put(c.id(), p);
            if (c.name() != null) {
                memberNames
                        .computeIfAbsent(p.scope(), k -> new HashMap<>())
                        .computeIfAbsent(c.name(), k -> new HashSet<>())
                        .add(c.id());
            }
        }
        if (!mine.isEmpty()) {
            out.put(c.id(), mine);
        }
    }

    /** Whether the chunk's recorded placements are {@code ps}, in order (so a put would change nothing). */
    private boolean samePlacements(String id, List<Placement> ps) {
        Map<String, Placement> mine = out.get(id);
        if (mine == null) {
            return ps.isEmpty();
        }
        if (mine.size() != ps.size()) {
            return false;
        }
        int i = 0;
        for (Placement p : mine.values()) {
            if (!p.equals(ps.get(i++))) {
                return false;
            }
        }
        return true;
    }

    /** Removes a chunk and its own placements; placements onto it become invisible. */
    public void remove(String id) {
        Chunk c = chunks.remove(id);
        if (c == null) {
            return;
        }
        if (c.name() != null) {
            dropFrom(byName, c.name(), id);
        }
        Map<String, Placement> mine = out.remove(id);
        if (mine != null) {
            for (String scope : mine.keySet()) {
                Map<String, Placement> m = in.get(scope);
                m.remove(id);
                if (m.isEmpty()) {
                    in.remove(scope);
                }
                if (c.name() != null) {
                    Map<String, Set<String>> names = memberNames.get(scope);
                    dropFrom(names, c.name(), id);
                    if (names.isEmpty()) {
                        memberNames.remove(scope);
                    }
                }
            }
        }
    }

    private static void dropFrom(Map<String, Set<String>> m, String key, String id) {
        Set<String> s = m.get(key);
        if (s != null) {
            s.remove(id);
            if (s.isEmpty()) {
                m.remove(key);
            }
        }
    }

    /** The chunk's visible placements (onto scopes that exist), in its own order. */
    public List<Placement> placementsOf(String chunk) {
        Map<String, Placement> m = out.get(chunk);
        if (m == null || !exists(chunk)) {
            return List.of();
        }
        List<Placement> r = new ArrayList<>(m.size());
        for (Placement p : m.values()) {
            if (chunks.containsKey(p.scope())) {
                r.add(p);
            }
        }
        return r;
    }

    /** The placement of {@code chunk} on {@code scope} if both exist, else null. */
    public Placement placement(String chunk, String scope) {
        if (!exists(scope)) {
            return null;
        }
        Map<String, Placement> m = in.get(scope);
        return m == null ? null : m.get(chunk);
    }

    /** The scope's members (every chunk placed on it, either type); empty if it does not exist. */
    public Collection<Placement> members(String scope) {
        if (!exists(scope)) {
            return List.of();
        }
        Map<String, Placement> m = in.get(scope);
        return m == null ? List.of() : m.values();
    }

    public int memberCount(String scope) {
        return members(scope).size();
    }

    /** The scopes a chunk is a visible {@code instance} of (its types). */
    public Set<String> typesOf(String chunk) {
        Set<String> r = new LinkedHashSet<>();
        for (Placement p : placementsOf(chunk)) {
            if (p.isInstance()) {
                r.add(p.scope());
            }
        }
        return r;
    }

    /** Every chunk {@code chunk} is transitively an instance of (cycle-safe; never itself). */
    public Set<String> ancestors(String chunk) {
        Set<String> seen = new LinkedHashSet<>();
        Deque<String> todo = new ArrayDeque<>(typesOf(chunk));
        while (!todo.isEmpty()) {
            String a = todo.removeFirst();
            if (!a.equals(chunk) && seen.add(a)) {
                todo.addAll(typesOf(a));
            }
        }
        return seen;
    }

    /** The members of {@code scope} named {@code name} (either placement type). */
    public Set<String> named(String scope, String name) {
        if (!exists(scope)) {
            return Set.of();
        }
        Map<String, Set<String>> names = memberNames.get(scope);
        Set<String> s = names == null ? null : names.get(name);
        return s == null ? Set.of() : Set.copyOf(s);
    }

    /** The {@code instance} members of {@code scope} named {@code name}. */
    public List<String> instancesNamed(String scope, String name) {
        List<String> r = new ArrayList<>(2);
        for (String id : named(scope, name)) {
            Placement p = placement(id, scope);
            if (p != null && p.isInstance()) {
                r.add(id);
            }
        }
        return r;
    }

    /** Every chunk carrying {@code name}, anywhere. */
    public Set<String> named(String name) {
        Set<String> s = byName.get(name);
        return s == null ? Set.of() : Set.copyOf(s);
    }

    /** The highest seq among the scope's members, or 0 when none has one. */
    public long maxSeq(String scope) {
        long max = 0;
        for (Placement p : members(scope)) {
            if (p.seq() != null && p.seq() > max) {
                max = p.seq();
            }
        }
        return max;
    }

    /**
     * The effective contract on instance placements onto {@code scope}: its own spec unless that
     * propagates, plus the propagating spec of every archetype it is transitively an instance of.
     */
    public Contract contractOf(String scope) {
        Chunk s = chunks.get(scope);
        if (s == null) {
            return Contract.NONE;
        }
        List<Chunk> parts = new ArrayList<>();
        if (!s.spec().propagate() && s.spec().constrains()) {
            parts.add(s);
        }
        for (String a : ancestors(scope)) {
            Chunk ac = chunks.get(a);
            if (ac.spec().propagate() && ac.spec().constrains()) {
                parts.add(ac);
            }
        }
        if (parts.isEmpty()) {
            return Contract.NONE;
        }
        boolean ordered = false;
        List<Contract.TypeRef> accepts = new ArrayList<>();
        Set<String> required = new TreeSet<>();
        Set<String> unique = new TreeSet<>();
        List<String> sources = new ArrayList<>();
        for (Chunk p : parts) {
            ordered |= p.spec().ordered();
            for (String name : p.spec().accepts()) {
                accepts.add(new Contract.TypeRef(p.id(), name, named(p.id(), name)));
            }
            required.addAll(p.spec().required());
            unique.addAll(p.spec().unique());
            sources.add(p.id());
        }
        return new Contract(ordered, accepts, required, unique, sources);
    }

    /** True when some chunk among {@code chunk} and its ancestors has a constraining propagating spec. */
    public boolean propagatesBelow(String chunk) {
        Chunk c = chunks.get(chunk);
        if (c != null && c.spec().propagate() && c.spec().constrains()) {
            return true;
        }
        for (String a : ancestors(chunk)) {
            Chunk ac = chunks.get(a);
            if (ac.spec().propagate() && ac.spec().constrains()) {
                return true;
            }
        }
        return false;
    }

    /** The result of resolving a reference: one chunk, none, or several (the message lists them). */
    public sealed interface Resolution {
        record Found(String id) implements Resolution {}

        record Missing(String message) implements Resolution {}

        record Ambiguous(String message, List<String> candidates) implements Resolution {}
    }

    /**
     * Resolves a reference: a chunk id, or a name path {@code a/b/c} where {@code a} is a chunk
     * named so (a root-level one wins when several carry the name) and each next segment names a
     * chunk placed on the previous one.
     */
    public Resolution resolve(String ref) {
        return References.resolve(this, ref);
    }

    /**
     * The chunks placed on every scope in {@code scopes} and on none in {@code minus}, ordered by
     * their seq on the first scope (chunks without one after), then by id (ULIDs: creation order).
     */
    public List<String> scope(List<String> scopes, List<String> minus) {
        if (scopes.isEmpty()) {
            return List.of();
        }
        List<String> byCount = new ArrayList<>(scopes);
        byCount.sort(Comparator.comparingInt(this::memberCount));
        List<String> r = new ArrayList<>();
        outer:
        for (Placement p : members(byCount.get(0))) {
            String c = p.chunk();
            for (int i = 1; i < byCount.size(); i++) {
                if (placement(c, byCount.get(i)) == null) {
                    continue outer;
                }
            }
            for (String m : minus) {
                if (placement(c, m) != null) {
                    continue outer;
                }
            }
            r.add(c);
        }
        String first = scopes.get(0);
        Map<String, Placement> on = in.get(first);
        r.sort((a, b) -> {
            Long sa = on.get(a).seq();
            Long sb = on.get(b).seq();
            if (sa != null && sb != null && !sa.equals(sb)) {
                return Long.compare(sa, sb);
            }
            if ((sa == null) != (sb == null)) {
                return sa == null ? 1 : -1;
            }
            return a.compareTo(b);
        });
        return r;
    }
}
