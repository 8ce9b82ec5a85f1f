package dev.memoryd.grammar.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One turn of a conversation DAG: the turn fields of SliceExport (SlicePolicy v1 §6.1) plus
 * its incoming edges {@code parents}.
 *
 * <p>Contract: {@code id} is a canonical lowercase UUID string (8-4-4-4-12 hex digits), so
 * that "UUID lexicographic" order is plain string order; {@code sessionId} is non-empty;
 * {@code salience}, {@code trajectoryHomogeneity} and {@code trajectoryTemporal} are in
 * [0.0, 1.0], {@code trajectoryComplexity} is finite and {@code >= 0}; depth and sibling order
 * are {@code >= 0}; {@code createdAt} is exported in the form it was given: integer epoch
 * seconds when {@code createdAtEpochSeconds} (the §6.1 example's form; the instant then has
 * no fraction of a second), else ISO 8601 UTC with {@code Z} ({@link Instant#toString()}). It
 * is no part of the fingerprint ({@code slice_id}, §6.3). {@code parents} holds no turn twice with the same edge type
 * and never the turn itself (one parent may be linked by several edge types).
 */
public record Turn(
        String id,
        String sessionId,
        Role role,
        Phase phase,
        double salience,
        int trajectoryDepth,
        int trajectorySiblingOrder,
        double trajectoryHomogeneity,
        double trajectoryTemporal,
        double trajectoryComplexity,
        Instant createdAt,
        boolean createdAtEpochSeconds,
        List<ParentRef> parents) {

    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    /** Validates every field (paths in errors are relative to the turn object). */
    public Turn {
        checkId("id", id);
        if (sessionId == null || sessionId.isEmpty()) {
            throw PolicyInputException.invalid("session_id", "must be a non-empty string");
        }
        if (role == null) {
            throw PolicyInputException.invalid("role", "is required");
        }
        if (phase == null) {
            throw PolicyInputException.invalid("phase", "is required");
        }
        unit("salience", salience);
        if (trajectoryDepth < 0) {
            throw PolicyInputException.invalid("trajectory_depth", "must be >= 0");
        }
        if (trajectorySiblingOrder < 0) {
            throw PolicyInputException.invalid("trajectory_sibling_order", "must be >= 0");
        }
        unit("trajectory_homogeneity", trajectoryHomogeneity);
        unit("trajectory_temporal", trajectoryTemporal);
        if (!(Double.isFinite(trajectoryComplexity) && trajectoryComplexity >= 0)) {
            throw PolicyInputException.invalid("trajectory_complexity", "must be a finite number >= 0");
        }
        if (createdAt == null) {
            throw PolicyInputException.invalid("created_at", "is required");
        }
        if (createdAtEpochSeconds && createdAt.getNano() != 0) {
            throw PolicyInputException.invalid("created_at", "epoch seconds have no fraction, got " + createdAt);
        }
        parents = parents == null ? List.of() : List.copyOf(parents);
        Set<ParentRef> seen = new HashSet<>();
        for (int i = 0; i < parents.size(); i++) {
            ParentRef p = parents.get(i);
            checkId("parents[" + i + "].id", p.id());
            if (p.id().equals(id)) {
                throw PolicyInputException.invalid("parents[" + i + "].id", "a turn cannot be its own parent");
            }
            if (!seen.add(p)) {
                throw PolicyInputException.invalid(
                        "parents[" + i + "]",
                        "duplicate edge " + p.id() + " " + p.edgeType().wire());
            }
        }
    }

    /** A turn whose {@code created_at} is exported as ISO 8601 UTC. */
    public Turn(
            String id,
            String sessionId,
            Role role,
            Phase phase,
            double salience,
            int trajectoryDepth,
            int trajectorySiblingOrder,
            double trajectoryHomogeneity,
            double trajectoryTemporal,
            double trajectoryComplexity,
            Instant createdAt,
            List<ParentRef> parents) {
        this(
                id,
                sessionId,
                role,
                phase,
                salience,
                trajectoryDepth,
                trajectorySiblingOrder,
                trajectoryHomogeneity,
                trajectoryTemporal,
                trajectoryComplexity,
                createdAt,
                false,
                parents);
    }

    private static void checkId(String field, String v) {
        if (v == null || !UUID.matcher(v).matches()) {
            throw PolicyInputException.invalid(field, "must be a lowercase UUID string, got " + v);
        }
    }

    private static void unit(String field, double v) {
        if (!(v >= 0.0 && v <= 1.0)) {
            throw PolicyInputException.invalid(field, "must be in [0.0, 1.0], got " + v);
        }
    }

    /**
     * Parses one turn object; {@code path} (e.g. {@code turns[3]}) prefixes field names in
     * errors. {@code parents} may be absent (a root); every other member is required, and
     * unknown members are refused. {@code created_at} is either ISO 8601 UTC ending in {@code Z}
     * or integer epoch seconds {@code >= 0} (as in the §6.1 example), and keeps its form.
     */
    public static Turn fromJson(JsonNode node, String path) {
        return fromJson(node, path, null);
    }

    /**
     * As {@link #fromJson(JsonNode, String)}, with {@code sessionIfAbsent} (null: none) as the
     * session of a turn object that has no {@code session_id} member (one that is JSON null is
     * refused as before).
     */
    public static Turn fromJson(JsonNode node, String path, String sessionIfAbsent) {
        StrictObject o = StrictObject.of(node, path);
        try {
            String id = o.string("id");
            String sessionId =
                    sessionIfAbsent != null && !node.has("session_id") ? sessionIfAbsent : o.string("session_id");
            String roleText = o.string("role");
            Role role = Role.fromWire(roleText);
            if (role == null) {
                throw PolicyInputException.invalid("role", "must be one of user, assistant, system, tool");
            }
            String phaseText = o.string("phase");
            Phase phase = Phase.fromWire(phaseText);
            if (phase == null) {
                throw PolicyInputException.invalid(
                        "phase", "must be one of exploration, debugging, planning, consolidation, synthesis");
            }
            double inf = Double.POSITIVE_INFINITY;
            double salience = o.number("salience", 0.0, 1.0, null);
            int depth = o.integer("trajectory_depth", 0, Integer.MAX_VALUE, null);
            int order = o.integer("trajectory_sibling_order", 0, Integer.MAX_VALUE, null);
            double homogeneity = o.number("trajectory_homogeneity", 0.0, 1.0, null);
            double temporal = o.number("trajectory_temporal", 0.0, 1.0, null);
            double complexity = o.number("trajectory_complexity", 0.0, inf, null);
            JsonNode created = o.get("created_at");
            boolean epoch = created != null && !created.isTextual();
            Instant createdAt = epoch ? epochSeconds(created) : isoInstant(o.string("created_at"));
            JsonNode ps = o.get("parents");
            List<ParentRef> parents = List.of();
            if (ps != null) {
                if (!ps.isArray()) {
                    throw PolicyInputException.invalid("parents", "must be an array");
                }
                ParentRef[] refs = new ParentRef[ps.size()];
                for (int i = 0; i < ps.size(); i++) {
                    StrictObject p = StrictObject.of(ps.get(i), "parents[" + i + "]");
                    String pid = p.string("id");
                    String et = p.string("edge_type");
                    EdgeType type = EdgeType.fromWire(et);
                    if (type == null) {
                        throw PolicyInputException.invalid(
                                "parents[" + i + "].edge_type", "must be one of reply, branch, reference, default");
                    }
                    p.rejectUnknown();
                    refs[i] = new ParentRef(pid, type);
                }
                parents = List.of(refs);
            }
            o.rejectUnknown();
            return new Turn(
                    id,
                    sessionId,
                    role,
                    phase,
                    salience,
                    depth,
                    order,
                    homogeneity,
                    temporal,
                    complexity,
                    createdAt,
                    epoch,
                    parents);
        } catch (PolicyInputException e) {
            if (path.isEmpty() || e.field().startsWith(path + ".") || e.field().equals(path)) {
                throw e;
            }
            throw PolicyInputException.invalid(
                    path + "." + e.field(), e.getMessage().substring(e.field().length() + 2));
        }
    }

    private static Instant epochSeconds(JsonNode n) {
        if (!n.isIntegralNumber()
                || !n.canConvertToLong()
                || n.longValue() < 0
                || n.longValue() > Instant.MAX.getEpochSecond()) {
            throw PolicyInputException.invalid(
                    "created_at",
                    "must be integer epoch seconds >= 0 or an ISO 8601 UTC timestamp ending in Z, got " + n);
        }
        return Instant.ofEpochSecond(n.longValue());
    }

    private static Instant isoInstant(String created) {
        try {
            if (!created.endsWith("Z")) {
                throw new DateTimeParseException("no Z", created, created.length());
            }
            return IsoInstants.parse(created);
        } catch (DateTimeParseException e) {
            throw PolicyInputException.invalid(
                    "created_at",
                    "must be an ISO 8601 UTC timestamp ending in Z or integer epoch seconds, got " + created);
        }
    }

    /** The SliceExport turn object of §6.1 (members in the spec's order; {@code parents} is not part of it). */
    public ObjectNode toExportJson() {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("id", id);
        n.put("session_id", sessionId);
        n.put("role", role.wire());
        n.put("phase", phase.wire());
        n.put("salience", salience);
        n.put("trajectory_depth", trajectoryDepth);
        n.put("trajectory_sibling_order", trajectorySiblingOrder);
        n.put("trajectory_homogeneity", trajectoryHomogeneity);
        n.put("trajectory_temporal", trajectoryTemporal);
        n.put("trajectory_complexity", trajectoryComplexity);
        if (createdAtEpochSeconds) {
            n.put("created_at", createdAt.getEpochSecond());
        } else {
            n.put("created_at", IsoInstants.format(createdAt));
        }
        return n;
    }
}
