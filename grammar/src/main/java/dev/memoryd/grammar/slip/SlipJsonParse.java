package dev.memoryd.grammar.slip;

import java.util.List;

/**
 * Result of {@link SlipJson#parse}: a message, or the first field that is wrong.
 *
 * <p>The reasons form a fixed set ({@link #REASONS}):
 * <ul>
 * <li>{@code wrong_type}: the value has the wrong JSON type (the whole input when it is
 *     not an object; a fraction such as {@code 1.0} for an integer; {@code null} for a
 *     slot value);</li>
 * <li>{@code missing_field}: a required field is absent or {@code null};</li>
 * <li>{@code unknown_field}: a field the form does not have;</li>
 * <li>{@code out_of_range}: an integer below 0 or above {@code Long.MAX_VALUE};</li>
 * <li>{@code unknown_act} / {@code unknown_frame} / {@code unknown_slot}: a name that is
 *     not an {@link Act}, {@link FrameType} or {@link Slot} constant (names are
 *     case-sensitive);</li>
 * <li>{@code bad_char}: a string slot holds a control character or an unpaired surrogate.</li>
 * </ul>
 */
public sealed interface SlipJsonParse {

    /** Every reason {@link Error#reason()} can take. */
    List<String> REASONS = List.of(
            "wrong_type",
            "missing_field",
            "unknown_field",
            "out_of_range",
            "unknown_act",
            "unknown_frame",
            "unknown_slot",
            "bad_char");

    /** A well-formed message. */
    record Ok(SlipMessage message) implements SlipJsonParse {
        public Ok {
            if (message == null) {
                throw new IllegalArgumentException("message must not be null");
            }
        }
    }

    /**
     * A malformed JSON message.
     *
     * @param fieldPath the offending field, dotted from the message object (e.g.
     *                  {@code conv_id}, {@code slots.GOAL_ID}); empty for the object itself
     * @param reason    one of {@link #REASONS}
     * @param message   human-readable explanation naming the field
     */
    record Error(String fieldPath, String reason, String message) implements SlipJsonParse {
        public Error {
            if (fieldPath == null) {
                throw new IllegalArgumentException("fieldPath must not be null");
            }
            if (!REASONS.contains(reason)) {
                throw new IllegalArgumentException("unknown reason '" + reason + "'");
            }
        }
    }
}
