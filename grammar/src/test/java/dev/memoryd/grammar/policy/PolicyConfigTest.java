package dev.memoryd.grammar.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.jcs.Jcs;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PolicyConfigTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** JCS form of the appendix (§12) object: members sorted, 1.0 printed as 1. */
    private static final String DEFAULT_JCS = "{\"distance_decay\":0.9,\"include_siblings\":true,\"max_nodes\":256,"
            + "\"max_radius\":10,\"max_siblings_per_node\":5,\"phase_weights\":{\"consolidation\":0.6,"
            + "\"debugging\":0.5,\"exploration\":0.3,\"planning\":0.9,\"synthesis\":1},\"salience_weight\":0.3,"
            + "\"version\":\"slice_policy_v1\"}";

    /**
     * Checked independently by {@code src/test/resources/policy/xxh64_check.py} (a pure-Python
     * xxHash64 verified against xxHash's sanity vectors, hashing {@link #DEFAULT_JCS}).
     */
    private static final String DEFAULT_PARAMS_HASH = "b0351b23b393541b";

    private static final String APPENDIX = """
            {
              "version": "slice_policy_v1",
              "max_nodes": 256,
              "max_radius": 10,
              "phase_weights": {
                "synthesis": 1.0,
                "planning": 0.9,
                "consolidation": 0.6,
                "debugging": 0.5,
                "exploration": 0.3
              },
              "salience_weight": 0.3,
              "distance_decay": 0.9,
              "include_siblings": true,
              "max_siblings_per_node": 5
            }
            """;

    @Test
    void defaultParamsHashIsStable() throws Exception {
        assertEquals(DEFAULT_JCS, Jcs.canonicalize(PolicyConfig.DEFAULT.toJson()));
        assertEquals(DEFAULT_PARAMS_HASH, PolicyConfig.DEFAULT.paramsHash());
        assertEquals(
                DEFAULT_PARAMS_HASH,
                PolicyConfig.fromJson(JSON.readTree(APPENDIX)).paramsHash());
    }

    @Test
    void appendixAndEmptyObjectParseToTheDefaults() throws Exception {
        assertEquals(PolicyConfig.DEFAULT, PolicyConfig.fromJson(JSON.readTree(APPENDIX)));
        assertEquals(PolicyConfig.DEFAULT, PolicyConfig.fromJson(JSON.readTree("{}")));
        assertEquals(PolicyConfig.DEFAULT, PolicyConfig.fromJson(JSON.readTree("{\"phase_weights\":{}}")));
        assertEquals(PolicyConfig.DEFAULT, PolicyConfig.fromJson(PolicyConfig.DEFAULT.toJson()));
    }

    @Test
    void partialConfigKeepsOtherDefaults() throws Exception {
        PolicyConfig c = PolicyConfig.fromJson(
                JSON.readTree(
                        "{\"max_nodes\":32,\"max_radius\":3,\"salience_weight\":0.5,\"distance_decay\":0.8,"
                                + "\"include_siblings\":false,\"max_siblings_per_node\":0,\"phase_weights\":{\"planning\":2}}"));
        assertEquals(new PolicyConfig(32, 3, new PhaseWeights(1.0, 2.0, 0.6, 0.5, 0.3), 0.5, 0.8, false, 0), c);
    }

    @Test
    void differentConfigurationsHashDifferently() {
        PolicyConfig d = PolicyConfig.DEFAULT;
        Set<String> hashes = new HashSet<>();
        hashes.add(d.paramsHash());
        hashes.add(new PolicyConfig(255, 10, d.phaseWeights(), 0.3, 0.9, true, 5).paramsHash());
        hashes.add(new PolicyConfig(256, 11, d.phaseWeights(), 0.3, 0.9, true, 5).paramsHash());
        hashes.add(
                new PolicyConfig(256, 10, new PhaseWeights(1.0, 0.9, 0.6, 0.5, 0.31), 0.3, 0.9, true, 5).paramsHash());
        hashes.add(new PolicyConfig(256, 10, d.phaseWeights(), 0.31, 0.9, true, 5).paramsHash());
        hashes.add(new PolicyConfig(256, 10, d.phaseWeights(), 0.3, 0.91, true, 5).paramsHash());
        hashes.add(new PolicyConfig(256, 10, d.phaseWeights(), 0.3, 0.9, false, 5).paramsHash());
        hashes.add(new PolicyConfig(256, 10, d.phaseWeights(), 0.3, 0.9, true, 6).paramsHash());
        assertEquals(8, hashes.size());
        for (String h : hashes) {
            assertTrue(h.matches("[0-9a-f]{16}"), h);
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"max_nodes\":0}|max_nodes",
                "{\"max_nodes\":-1}|max_nodes",
                "{\"max_nodes\":2.5}|max_nodes",
                "{\"max_nodes\":256.0}|max_nodes",
                "{\"max_nodes\":\"256\"}|max_nodes",
                "{\"max_nodes\":99999999999}|max_nodes",
                "{\"max_radius\":-1}|max_radius",
                "{\"max_radius\":true}|max_radius",
                "{\"salience_weight\":1.5}|salience_weight",
                "{\"salience_weight\":-0.1}|salience_weight",
                "{\"distance_decay\":1.01}|distance_decay",
                "{\"distance_decay\":\"0.9\"}|distance_decay",
                "{\"include_siblings\":1}|include_siblings",
                "{\"max_siblings_per_node\":-2}|max_siblings_per_node",
                "{\"phase_weights\":[]}|phase_weights",
                "{\"phase_weights\":{\"planning\":\"high\"}}|phase_weights.planning",
                "{\"phase_weights\":{\"reflection\":0.5}}|phase_weights.reflection",
                "{\"version\":\"slice_policy_v2\"}|version",
                "{\"max_node\":3}|max_node",
                "[]|$",
            })
    void strictValidationNamesTheField(String json, String field) throws Exception {
        PolicyInputException e =
                assertThrows(PolicyInputException.class, () -> PolicyConfig.fromJson(JSON.readTree(json)));
        assertEquals(field, e.field(), e.getMessage());
        assertEquals(PolicyInputException.Kind.INVALID, e.kind());
        assertTrue(e.getMessage().startsWith(field + ": "), e.getMessage());
    }

    @Test
    void constructorRefusesInvalidValuesToo() {
        PhaseWeights w = PhaseWeights.DEFAULT;
        assertEquals(
                "max_nodes",
                assertThrows(PolicyInputException.class, () -> new PolicyConfig(0, 1, w, 0.3, 0.9, true, 5))
                        .field());
        assertEquals(
                "distance_decay",
                assertThrows(PolicyInputException.class, () -> new PolicyConfig(1, 1, w, 0.3, Double.NaN, true, 5))
                        .field());
        assertEquals(
                "phase_weights.debugging",
                assertThrows(PolicyInputException.class, () -> new PhaseWeights(1, 1, 1, Double.POSITIVE_INFINITY, 1))
                        .field());
    }

    @Test
    void phaseWeightsAreNotClamped() throws Exception {
        ObjectNode n = (ObjectNode) JSON.readTree("{\"phase_weights\":{\"synthesis\":1.5,\"exploration\":-0.25}}");
        PolicyConfig c = PolicyConfig.fromJson(n);
        assertEquals(1.5, c.phaseWeights().weight(Phase.SYNTHESIS));
        assertEquals(-0.25, c.phaseWeights().weight(Phase.EXPLORATION));
        assertNotEquals(PolicyConfig.DEFAULT.paramsHash(), c.paramsHash());
    }
}
