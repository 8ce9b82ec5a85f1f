package dev.memoryd.grammar.policy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;

/**
 * The SliceExport of SlicePolicy v1 (spec §6.1) as {@link ContextSelector#export} builds it: the
 * anchor, the selected turns sorted by id, the edges among them sorted by (parent, child,
 * edge_type), and the hashes. {@code policy_id} and {@code schema_version} are the same for every
 * export ({@link ContextSelector#POLICY_ID}, {@link ContextSelector#SCHEMA_VERSION}).
 *
 * <p>{@link #toJson} is the one writer of its JSON form, members in the spec's order; the same
 * export always gives the same bytes. Immutable.
 */
public record SliceExport(
        String anchorTurnId,
        List<Turn> turns,
        List<ConversationDag.Edge> edges,
        String policyParamsHash,
        String sliceId) {
    public SliceExport {
        Objects.requireNonNull(anchorTurnId, "anchorTurnId");
        Objects.requireNonNull(policyParamsHash, "policyParamsHash");
        Objects.requireNonNull(sliceId, "sliceId");
        turns = List.copyOf(turns);
        edges = List.copyOf(edges);
    }

    /** The §6.1 object: {@code anchor_turn_id, turns, edges, policy_id, policy_params_hash, schema_version, slice_id}. */
    public ObjectNode toJson() {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("anchor_turn_id", anchorTurnId);
        ArrayNode ta = out.putArray("turns");
        for (Turn t : turns) {
            ta.add(t.toExportJson());
        }
        ArrayNode ea = out.putArray("edges");
        for (ConversationDag.Edge e : edges) {
            ea.add(edgeJson(e));
        }
        out.put("policy_id", ContextSelector.POLICY_ID);
        out.put("policy_params_hash", policyParamsHash);
        out.put("schema_version", ContextSelector.SCHEMA_VERSION);
        out.put("slice_id", sliceId);
        return out;
    }

    /** An edge as §6.1 writes it, also what {@code slice_id} hashes. */
    static ObjectNode edgeJson(ConversationDag.Edge e) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("parent", e.parent());
        n.put("child", e.child());
        n.put("edge_type", e.edgeType().wire());
        return n;
    }
}
