package dev.memoryd.grammar.substrate;

import java.util.List;
import java.util.Set;

/**
 * The effective contract on instance placements onto one scope: the union of the scope's own
 * non-propagating spec and the propagating specs of every archetype the scope is (transitively)
 * an instance of. Each {@code accepts} name is already resolved within its archetype's own scope.
 */
public record Contract(
        boolean ordered, List<TypeRef> accepts, Set<String> required, Set<String> unique, List<String> sources) {
    public static final Contract NONE = new Contract(false, List.of(), Set.of(), Set.of(), List.of());

    public Contract {
        accepts = List.copyOf(accepts);
        required = Set.copyOf(required);
        unique = Set.copyOf(unique);
        sources = List.copyOf(sources);
    }

    /** One accepted type: a name from {@code archetype}'s spec and the chunks it resolves to there. */
    public record TypeRef(String archetype, String name, Set<String> resolved) {
        public TypeRef {
            resolved = Set.copyOf(resolved);
        }
    }

    public boolean isEmpty() {
        return !ordered && accepts.isEmpty() && required.isEmpty() && unique.isEmpty();
    }
}
