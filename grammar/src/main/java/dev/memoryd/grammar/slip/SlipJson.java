package dev.memoryd.grammar.slip;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The JSON form of a {@link SlipMessage}, as {@code slip.recv} shows it:
 * <pre>{@code {"conv_id":3, "turn":1, "src":0, "dst":1, "act":"REQUEST", "frame":"TASK",
 *  "slots":{"GOAL_ID":17, "TAG":"refactor_auth"}}}</pre>
 *
 * <p>Contract: {@link #toJson} writes the fields in the order above and the slots in
 * code order, acts, frames and slots by their constant names, integers as JSON integers
 * (an {@code int} node when the value fits, else a {@code long} node, as
 * {@code ObjectMapper.readTree} would build them), and always writes {@code slots}
 * (possibly {@code {}}). {@link #parse} never throws: it requires all seven fields
 * (a JSON {@code null} counts as absent), rejects unknown fields, wrong JSON types,
 * integers outside {@code [0, Long.MAX_VALUE]} (fractions such as {@code 1.0} are not
 * integers) and unknown names, reporting the first offending field by path with a
 * reason of {@link SlipJsonParse#REASONS}. So {@code parse(toJson(m))} is {@code Ok(m)}
 * and {@code toJson} of a parsed message equals the input whenever the input was in
 * this canonical form. Duplicate JSON keys are the JSON reader's business (Jackson keeps
 * the last unless {@code STRICT_DUPLICATE_DETECTION} is on).
 */
public final class SlipJson {

    private static final List<String> FIELDS = List.of("conv_id", "turn", "src", "dst", "act", "frame", "slots");
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private SlipJson() {}

    /** The JSON form of {@code m}. */
    public static ObjectNode toJson(SlipMessage m) {
        ObjectNode o = F.objectNode();
        putInt(o, "conv_id", m.convId());
        putInt(o, "turn", m.turn());
        putInt(o, "src", m.src());
        putInt(o, "dst", m.dst());
        o.put("act", m.act().name());
        o.put("frame", m.frame().name());
        ObjectNode slots = o.putObject("slots");
        for (Map.Entry<Slot, Object> e : m.slots().entrySet()) {
            if (e.getKey().isString()) {
                slots.put(e.getKey().name(), (String) e.getValue());
            } else {
                putInt(slots, e.getKey().name(), (Long) e.getValue());
            }
        }
        return o;
    }

    private static void putInt(ObjectNode o, String field, long v) {
        if (v <= Integer.MAX_VALUE) {
            o.put(field, (int) v);
        } else {
            o.put(field, v);
        }
    }

    /** Parses the JSON form; see the class contract. */
    public static SlipJsonParse parse(JsonNode json) {
        try {
            return new SlipJsonParse.Ok(read(json));
        } catch (Bad b) {
            return new SlipJsonParse.Error(b.field, b.reason, b.getMessage());
        }
    }

    private static SlipMessage read(JsonNode json) {
        if (json == null || !json.isObject()) {
            throw new Bad("", "wrong_type", "a SLIP message must be a JSON object");
        }
        for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                throw new Bad(f, "unknown_field", "unknown field '" + f + "'; expected " + String.join(", ", FIELDS));
            }
        }
        long convId = integer(required(json, "conv_id"), "conv_id");
        long turn = integer(required(json, "turn"), "turn");
        long src = integer(required(json, "src"), "src");
        long dst = integer(required(json, "dst"), "dst");
        String actName = string(required(json, "act"), "act");
        Act act = Act.byName(actName)
                .orElseThrow(() -> new Bad(
                        "act",
                        "unknown_act",
                        "field 'act': unknown act '" + actName + "'; expected one of " + names(Act.values())));
        String frameName = string(required(json, "frame"), "frame");
        FrameType frame = FrameType.byName(frameName)
                .orElseThrow(() -> new Bad(
                        "frame",
                        "unknown_frame",
                        "field 'frame': unknown frame '" + frameName + "'; expected one of "
                                + names(FrameType.values())));
        JsonNode slotsNode = required(json, "slots");
        if (!slotsNode.isObject()) {
            throw new Bad("slots", "wrong_type", "field 'slots' must be an object of slot name to value");
        }
        Map<Slot, Object> slots = new EnumMap<>(Slot.class);
        for (Iterator<Map.Entry<String, JsonNode>> it = slotsNode.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = "slots." + e.getKey();
            Slot slot = Slot.byName(e.getKey())
                    .orElseThrow(() -> new Bad(
                            path,
                            "unknown_slot",
                            "field '" + path + "': unknown slot '" + e.getKey() + "'; expected one of "
                                    + names(Slot.values())));
            if (slot.isString()) {
                String v = string(e.getValue(), path);
                int bad = SlipMessage.badCharIndex(v);
                if (bad >= 0) {
                    throw new Bad(
                            path,
                            "bad_char",
                            "field '" + path + "' has " + SlipMessage.describeBadChar(v, bad) + " at index " + bad);
                }
                slots.put(slot, v);
            } else {
                slots.put(slot, integer(e.getValue(), path));
            }
        }
        return SlipMessage.of(convId, turn, src, dst, act, frame, slots);
    }

    private static String names(Enum<?>[] values) {
        StringBuilder b = new StringBuilder();
        for (Enum<?> v : values) {
            b.append(b.length() == 0 ? "" : ", ").append(v.name());
        }
        return b.toString();
    }

    private static JsonNode required(JsonNode json, String field) {
        JsonNode n = json.get(field);
        if (n == null || n.isNull()) {
            throw new Bad(field, "missing_field", "missing required field '" + field + "'");
        }
        return n;
    }

    private static long integer(JsonNode n, String path) {
        if (!n.isIntegralNumber()) {
            throw new Bad(path, "wrong_type", "field '" + path + "' must be a JSON integer");
        }
        if (!n.canConvertToLong() || n.longValue() < 0) {
            throw new Bad(
                    path, "out_of_range", "field '" + path + "' must be in [0, " + Long.MAX_VALUE + "], got " + n);
        }
        return n.longValue();
    }

    private static String string(JsonNode n, String path) {
        if (!n.isTextual()) {
            throw new Bad(path, "wrong_type", "field '" + path + "' must be a string");
        }
        return n.textValue();
    }

    /** Unwinds on the first bad field; stackless. */
    private static final class Bad extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String field;
        final String reason;

        Bad(String field, String reason, String message) {
            super(message, null, false, false);
            this.field = field;
            this.reason = reason;
        }
    }
}
