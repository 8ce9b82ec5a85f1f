package dev.memoryd.grammar.slip;

import java.util.List;
import java.util.Optional;

/**
 * The SLIP slots (slip-v0.1 §2 "Slots"), each with a stable code, a one-character nSLIP
 * prefix and a value type.
 *
 * <p>Contract: the constants are declared in the spec's order and {@link #code()} is the
 * position in that list from 0 (GOAL_ID 0 … TAG 8), as docs/DESIGN.md fixes; the natural
 * (enum) order is therefore code order. {@link #STATUS} and {@link #TAG} hold strings
 * ({@link String}), every other slot a non-negative integer ({@link Long}). No prefix
 * collides with a header prefix ({@code a f c S d T}). Lookups return empty for an
 * unknown code, name or prefix, never throw.
 */
public enum Slot {
    /** Goal handle. */
    GOAL_ID('g', false),
    /** Task handle. */
    TASK_ID('k', false),
    /** Parent task handle. */
    PARENT_TASK_ID('p', false),
    /** Result/artifact handle. */
    RESULT_ID('r', false),
    /** Small int. */
    PRIORITY('q', false),
    /** Numeric score, encoded as an int. */
    SCORE('s', false),
    /** Short status string. */
    STATUS('u', true),
    /** Error code as an int. */
    ERROR_CODE('e', false),
    /** Short mnemonic tag/string. */
    TAG('t', true);

    private static final List<Slot> BY_CODE = List.of(values());

    private final char prefix;
    private final boolean string;

    Slot(char prefix, boolean string) {
        this.prefix = prefix;
        this.string = string;
    }

    /** The wire code: position in the spec's list, from 0. */
    public int code() {
        return ordinal();
    }

    /** The one-character nSLIP prefix, e.g. {@code g} for {@link #GOAL_ID}. */
    public char prefix() {
        return prefix;
    }

    /** Whether the value is a string; otherwise it is a non-negative integer. */
    public boolean isString() {
        return string;
    }

    /** The Java type of the value: {@code String.class} or {@code Long.class}. */
    public Class<?> valueType() {
        return string ? String.class : Long.class;
    }

    /** The slot with this code, or empty. */
    public static Optional<Slot> byCode(long code) {
        return code >= 0 && code < BY_CODE.size() ? Optional.of(BY_CODE.get((int) code)) : Optional.empty();
    }

    /** The slot with this exact (upper-case) name, e.g. {@code GOAL_ID}, or empty. */
    public static Optional<Slot> byName(String name) {
        for (Slot s : BY_CODE) {
            if (s.name().equals(name)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** The slot with this nSLIP prefix, or empty. */
    public static Optional<Slot> byPrefix(char prefix) {
        for (Slot s : BY_CODE) {
            if (s.prefix == prefix) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
