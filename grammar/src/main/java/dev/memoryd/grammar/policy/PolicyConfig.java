package dev.memoryd.grammar.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.jcs.Jcs;

/**
 * The SlicePolicy v1 configuration (spec §3, defaults as in its appendix §12).
 *
 * <p>Contract: a constructed config is valid: {@code maxNodes >= 1}, {@code maxRadius >= 0},
 * {@code salienceWeight} and {@code distanceDecay} in [0.0, 1.0], {@code maxSiblingsPerNode >= 0},
 * phase weights finite (not clamped). Integers are bounded by {@link Integer#MAX_VALUE}; a budget
 * that large already exceeds any DAG a JVM can hold. All reals are IEEE doubles.
 * {@link #toJson()} is the appendix object (with {@code "version": "slice_policy_v1"}), and
 * {@link #paramsHash()} is xxHash64 (seed 0, 16 lowercase hex digits) of its RFC 8785 form
 * (docs/DESIGN.md, "Where the specs are loose").
 */
public record PolicyConfig(
        int maxNodes,
        int maxRadius,
        PhaseWeights phaseWeights,
        double salienceWeight,
        double distanceDecay,
        boolean includeSiblings,
        int maxSiblingsPerNode) {

    /** The policy id, also the config's {@code version} member. */
    public static final String POLICY_ID = "slice_policy_v1";

    /** The spec's default configuration (§12). */
    public static final PolicyConfig DEFAULT = new PolicyConfig(256, 10, PhaseWeights.DEFAULT, 0.3, 0.9, true, 5);

    /** Validates every parameter; the exception names the field. */
    public PolicyConfig {
        if (maxNodes < 1) {
            throw PolicyInputException.invalid("max_nodes", "must be >= 1, got " + maxNodes);
        }
        if (maxRadius < 0) {
            throw PolicyInputException.invalid("max_radius", "must be >= 0, got " + maxRadius);
        }
        if (phaseWeights == null) {
            throw PolicyInputException.invalid("phase_weights", "is required");
        }
        unit("salience_weight", salienceWeight);
        unit("distance_decay", distanceDecay);
        if (maxSiblingsPerNode < 0) {
            throw PolicyInputException.invalid("max_siblings_per_node", "must be >= 0, got " + maxSiblingsPerNode);
        }
    }

    private static void unit(String field, double v) {
        if (!(v >= 0.0 && v <= 1.0)) { // also refuses NaN
            throw PolicyInputException.invalid(field, "must be in [0.0, 1.0], got " + v);
        }
    }

    /**
     * Parses a configuration object with the member names of §12. Absent (or null) members
     * take their defaults, so {@code {}} is the default config; {@code version}, if present,
     * must be {@code "slice_policy_v1"}; unknown members, wrong types (including integers
     * written with a fraction part) and out-of-range values are refused with a
     * {@link PolicyInputException} naming the field.
     */
    public static PolicyConfig fromJson(JsonNode node) {
        StrictObject o = StrictObject.of(node, "");
        JsonNode version = o.get("version");
        if (version != null && !(version.isTextual() && POLICY_ID.equals(version.textValue()))) {
            throw PolicyInputException.invalid("version", "must be \"" + POLICY_ID + "\"");
        }
        int max = Integer.MAX_VALUE;
        int maxNodes = o.integer("max_nodes", 1, max, DEFAULT.maxNodes);
        int maxRadius = o.integer("max_radius", 0, max, DEFAULT.maxRadius);
        JsonNode pw = o.get("phase_weights");
        PhaseWeights weights = pw == null ? PhaseWeights.DEFAULT : PhaseWeights.fromJson(pw, "phase_weights");
        double salienceWeight = o.number("salience_weight", 0.0, 1.0, DEFAULT.salienceWeight);
        double distanceDecay = o.number("distance_decay", 0.0, 1.0, DEFAULT.distanceDecay);
        boolean includeSiblings = o.bool("include_siblings", DEFAULT.includeSiblings);
        int maxSiblings = o.integer("max_siblings_per_node", 0, max, DEFAULT.maxSiblingsPerNode);
        o.rejectUnknown();
        return new PolicyConfig(
                maxNodes, maxRadius, weights, salienceWeight, distanceDecay, includeSiblings, maxSiblings);
    }

    /** The full configuration object of §12, every member present. */
    public ObjectNode toJson() {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("version", POLICY_ID);
        n.put("max_nodes", maxNodes);
        n.put("max_radius", maxRadius);
        n.set("phase_weights", phaseWeights.toJson());
        n.put("salience_weight", salienceWeight);
        n.put("distance_decay", distanceDecay);
        n.put("include_siblings", includeSiblings);
        n.put("max_siblings_per_node", maxSiblingsPerNode);
        return n;
    }

    /** {@code policy_params_hash}: xxHash64 (seed 0) of the JCS form of {@link #toJson()}, 16 lowercase hex digits. */
    public String paramsHash() {
        return XxHash64.hex(XxHash64.hash(Jcs.canonicalBytes(toJson()), 0L));
    }
}
