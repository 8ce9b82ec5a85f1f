package dev.memoryd.grammar.slip;

import java.util.List;

/**
 * Result of {@link Nslip#decode}: a message, or the first problem in the input.
 *
 * <p>The reasons form a fixed set ({@link #REASONS}):
 * <ul>
 * <li>{@code missing_at}: the input does not start with {@code @};</li>
 * <li>{@code missing_hash}: the input ends before the closing {@code #} (outside a string);</li>
 * <li>{@code missing_field}: a header field is absent or out of place: the header must be
 *     {@code a f c S d T}, in that order, before any slot;</li>
 * <li>{@code empty_field}: a separator is followed by another separator or by {@code #};</li>
 * <li>{@code unknown_prefix}: a field after the header starts with a char that is
 *     neither a slot prefix nor a header prefix;</li>
 * <li>{@code duplicate_field}: a header prefix appears again after the header;</li>
 * <li>{@code duplicate_slot}: a slot appears twice;</li>
 * <li>{@code bad_base62}: an integer is empty, has a char outside the base62 alphabet
 *     (this includes a string given for an integer field), or has a leading zero;</li>
 * <li>{@code overflow}: an integer exceeds {@code Long.MAX_VALUE};</li>
 * <li>{@code unknown_act} / {@code unknown_frame}: the code is not in the spec's list;</li>
 * <li>{@code expected_string}: a STATUS or TAG value does not start with {@code "};</li>
 * <li>{@code unterminated_string}: the input ends inside a string;</li>
 * <li>{@code bad_escape}: a backslash in a string is not followed by {@code \} or {@code "};</li>
 * <li>{@code bad_char}: a string holds a control character or an unpaired surrogate;</li>
 * <li>{@code expected_separator}: a closing quote is followed by something other than
 *     {@code |} or {@code #};</li>
 * <li>{@code trailing_input}: anything (even a newline) follows the closing {@code #}.</li>
 * </ul>
 */
public sealed interface SlipParse {

    /** Every reason {@link Error#reason()} can take. */
    List<String> REASONS = List.of(
            "missing_at",
            "missing_hash",
            "missing_field",
            "empty_field",
            "unknown_prefix",
            "duplicate_field",
            "duplicate_slot",
            "bad_base62",
            "overflow",
            "unknown_act",
            "unknown_frame",
            "expected_string",
            "unterminated_string",
            "bad_escape",
            "bad_char",
            "expected_separator",
            "trailing_input");

    /** A well-formed message. */
    record Ok(SlipMessage message) implements SlipParse {
        public Ok {
            if (message == null) {
                throw new IllegalArgumentException("message must not be null");
            }
        }
    }

    /**
     * A malformed input.
     *
     * @param position 0-based char (UTF-16 code unit) offset of the problem in the input,
     *                 in {@code [0, input.length()]}: the offending char; the input's
     *                 length for {@code missing_hash}; the opening quote for
     *                 {@code unterminated_string}; the field's prefix for
     *                 {@code missing_field}, {@code unknown_prefix}, {@code duplicate_*}
     *                 (or the {@code #} that came too early); the first digit for
     *                 {@code unknown_act} / {@code unknown_frame}; the digit that
     *                 overflows for {@code overflow}
     * @param reason   one of {@link #REASONS}
     * @param message  human-readable explanation naming the position
     */
    record Error(int position, String reason, String message) implements SlipParse {
        public Error {
            if (position < 0) {
                throw new IllegalArgumentException("position must be non-negative, got " + position);
            }
            if (!REASONS.contains(reason)) {
                throw new IllegalArgumentException("unknown reason '" + reason + "'");
            }
        }
    }
}
