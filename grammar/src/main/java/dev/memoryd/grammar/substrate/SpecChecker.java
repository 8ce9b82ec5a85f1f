package dev.memoryd.grammar.substrate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The spec rules over one graph state: which instance placements a change may affect, and
 * whether each still holds. Contracts are cached, so one checker serves one state only.
 *
 * <p>Not thread-safe; reads the graph only. Placements are checked in a fixed order (those of the
 * touched chunks, then the instances of the scopes reached), and the first violation is returned.
 */
final class SpecChecker {
    final ChunkGraph g;
    final Map<String, Contract> contracts = new HashMap<>();

    SpecChecker(ChunkGraph g) {
        this.g = g;
    }

    /**
     * Checks, on the graph as it is now, every instance placement whose outcome may have
     * changed: those of the {@code touched} and {@code retyped} chunks, and all instances of
     * the touched chunks and {@code dirtyScopes} (deeper through propagating archetypes).
     * Returns the first violation, or null.
     */
    Declare.Violation check(Set<String> touched, Set<String> dirtyScopes, Set<String> retyped) {
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
            Declare.Violation v = validate(p, uniqueValues);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    private Declare.Violation validate(Placement p, Map<String, Map<JsonNode, List<String>>> uniqueValues) {
        Chunk c = g.chunk(p.chunk());
        Chunk s = g.chunk(p.scope());
        String on = " on " + Declare.label(s);
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
                        k.sources().stream().map(x -> Declare.label(g.chunk(x))).toList()) + ")";
        if (k.ordered() && p.seq() == null) {
            return violation("ordered", c, p, Declare.label(c) + " has no seq" + on + ", which is ordered" + from);
        }
        for (String key : k.required()) {
            if (!c.body().has(key)) {
                return violation(
                        "required", c, p, Declare.label(c) + " lacks body key '" + key + "' required" + on + from);
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
                        Declare.label(c) + " is not an instance of any type accepted" + on + ": " + names + from);
            }
            if (matched.size() > 1) {
                return violation(
                        "accepts",
                        c,
                        p,
                        Declare.label(c) + " is an instance of " + matched.size()
                                + " types accepted" + on + " ("
                                + String.join(
                                        ", ",
                                        matched.stream()
                                                .map(x -> Declare.label(g.chunk(x)))
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
                        Declare.label(c) + " has body." + key + " = " + v + ", already held" + on + " by "
                                + String.join(", ", others) + from);
            }
        }
        return null;
    }

    Contract contract(String scope) {
        return contracts.computeIfAbsent(scope, g::contractOf);
    }

    private Declare.Violation violation(String rule, Chunk c, Placement p, String message) {
        return new Declare.Violation(rule, c.id(), c.name(), p.scope(), rule + ": " + message);
    }
}
