package dev.memoryd.grammar.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Per-phase weights of SlicePolicy v1 §3.3.
 *
 * <p>Contract: every weight is a finite IEEE double; the spec says weights "should be in
 * [0.0, 1.0] but are not clamped", so any finite value is accepted and used as given.
 */
public record PhaseWeights(
        double synthesis, double planning, double consolidation, double debugging, double exploration) {

    /** The spec's defaults: 1.0, 0.9, 0.6, 0.5, 0.3. */
    public static final PhaseWeights DEFAULT = new PhaseWeights(1.0, 0.9, 0.6, 0.5, 0.3);

    /** Refuses non-finite weights. */
    public PhaseWeights {
        check("synthesis", synthesis);
        check("planning", planning);
        check("consolidation", consolidation);
        check("debugging", debugging);
        check("exploration", exploration);
    }

    private static void check(String name, double w) {
        if (!Double.isFinite(w)) {
            throw PolicyInputException.invalid("phase_weights." + name, "must be finite");
        }
    }

    /** The weight of {@code phase}. */
    public double weight(Phase phase) {
        return switch (phase) {
            case SYNTHESIS -> synthesis;
            case PLANNING -> planning;
            case CONSOLIDATION -> consolidation;
            case DEBUGGING -> debugging;
            case EXPLORATION -> exploration;
        };
    }

    /** Parses {@code phase_weights}; absent members take their defaults, unknown members are refused. */
    static PhaseWeights fromJson(JsonNode node, String path) {
        StrictObject o = StrictObject.of(node, path);
        double inf = Double.POSITIVE_INFINITY;
        PhaseWeights w = new PhaseWeights(
                o.number("synthesis", -inf, inf, DEFAULT.synthesis),
                o.number("planning", -inf, inf, DEFAULT.planning),
                o.number("consolidation", -inf, inf, DEFAULT.consolidation),
                o.number("debugging", -inf, inf, DEFAULT.debugging),
                o.number("exploration", -inf, inf, DEFAULT.exploration));
        o.rejectUnknown();
        return w;
    }

    ObjectNode toJson() {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("synthesis", synthesis);
        n.put("planning", planning);
        n.put("consolidation", consolidation);
        n.put("debugging", debugging);
        n.put("exploration", exploration);
        return n;
    }
}
