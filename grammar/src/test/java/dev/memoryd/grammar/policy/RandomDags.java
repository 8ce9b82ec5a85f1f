package dev.memoryd.grammar.policy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/** Seeded random conversation DAGs and policy configs, biased toward ties and shared parents. */
final class RandomDags {
    private static final double[] SALIENCE = {0.0, 0.25, 0.5, 1.0};

    private RandomDags() {}

    /** Turns in creation order (a turn's parents always come earlier, so the graph is acyclic). */
    static List<Turn> turns(Random r) {
        int n = 1 + r.nextInt(r.nextInt(4) == 0 ? 60 : 20);
        List<Turn> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String id = new UUID(r.nextLong(), r.nextLong()).toString();
            List<ParentRef> parents = new ArrayList<>();
            if (i > 0) {
                int k = r.nextInt(10) < 1 ? 0 : 1 + (r.nextInt(4) == 0 ? r.nextInt(3) : 0);
                for (int j = 0; j < k; j++) {
                    // Favour recent turns (chains) but also fan out from older ones (siblings).
                    int pi = r.nextBoolean() ? i - 1 - r.nextInt(Math.min(i, 3)) : r.nextInt(i);
                    ParentRef p = new ParentRef(out.get(pi).id(), EdgeType.values()[r.nextInt(4)]);
                    if (!parents.contains(p)) {
                        parents.add(p);
                    }
                }
            }
            double salience = r.nextInt(4) == 0 ? r.nextDouble() : SALIENCE[r.nextInt(SALIENCE.length)];
            out.add(new Turn(
                    id,
                    "s" + r.nextInt(2),
                    Role.values()[r.nextInt(4)],
                    Phase.values()[r.nextInt(5)],
                    salience,
                    r.nextInt(5),
                    r.nextInt(4),
                    r.nextDouble(),
                    r.nextDouble(),
                    r.nextDouble() * 3,
                    Instant.ofEpochSecond(1704067200L + r.nextInt(1_000_000)),
                    parents));
        }
        return out;
    }

    static PolicyConfig config(Random r, int n) {
        if (r.nextInt(6) == 0) {
            return PolicyConfig.DEFAULT;
        }
        double[] decays = {0.0, 0.5, 0.9, 1.0, r.nextDouble()};
        double[] weights = {0.0, 0.3, 1.0, r.nextDouble()};
        PhaseWeights pw = r.nextInt(3) == 0 ? new PhaseWeights(0.5, 0.5, 0.5, 0.5, 0.5) : PhaseWeights.DEFAULT;
        return new PolicyConfig(
                1 + r.nextInt(n + 2),
                r.nextInt(7),
                pw,
                weights[r.nextInt(weights.length)],
                decays[r.nextInt(decays.length)],
                r.nextInt(4) != 0,
                r.nextInt(5));
    }

    /** The same turns in another order, each parent list permuted too. */
    static List<Turn> shuffled(List<Turn> turns, Random r) {
        List<Turn> out = new ArrayList<>();
        for (Turn t : turns) {
            List<ParentRef> ps = new ArrayList<>(t.parents());
            Collections.shuffle(ps, r);
            out.add(new Turn(
                    t.id(),
                    t.sessionId(),
                    t.role(),
                    t.phase(),
                    t.salience(),
                    t.trajectoryDepth(),
                    t.trajectorySiblingOrder(),
                    t.trajectoryHomogeneity(),
                    t.trajectoryTemporal(),
                    t.trajectoryComplexity(),
                    t.createdAt(),
                    ps));
        }
        Collections.shuffle(out, r);
        return out;
    }
}
