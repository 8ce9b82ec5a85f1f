package dev.memoryd.grammar.slip;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One SLIP message (slip-v0.1 §2), validated on construction so that every instance has
 * exactly one nSLIP and one JSON form.
 *
 * <p>Contract: {@code convId}, {@code turn}, {@code src} and {@code dst} are in
 * {@code [0, Long.MAX_VALUE]}; {@code act}, {@code frame} and {@code slots} are non-null;
 * every slot value is non-null and of the slot's {@link Slot#valueType()}: a
 * {@link String} for {@link Slot#STATUS} and {@link Slot#TAG}, a non-negative
 * {@link Long} (not an {@code Integer}) for every other slot. String values may be empty
 * but contain no control character ({@link Character#isISOControl}) and no unpaired
 * surrogate, so the nSLIP form stays on one line and survives UTF-8. {@code slots} is
 * copied into an unmodifiable map in code order, whatever the comparator of the
 * argument. Violations throw {@link IllegalArgumentException} naming the problem.
 */
public record SlipMessage(
        long convId, long turn, long src, long dst, Act act, FrameType frame, SortedMap<Slot, Object> slots) {

    public SlipMessage {
        nonNegative("conv_id", convId);
        nonNegative("turn", turn);
        nonNegative("src", src);
        nonNegative("dst", dst);
        if (act == null) {
            throw new IllegalArgumentException("act must not be null");
        }
        if (frame == null) {
            throw new IllegalArgumentException("frame must not be null");
        }
        slots = copyOf(slots);
    }

    /**
     * Same as the constructor, for any map of slots (e.g. {@code Map.of(Slot.GOAL_ID, 17L)}).
     */
    public static SlipMessage of(
            long convId, long turn, long src, long dst, Act act, FrameType frame, Map<Slot, ?> slots) {
        return new SlipMessage(convId, turn, src, dst, act, frame, copyOf(slots));
    }

    private static SortedMap<Slot, Object> copyOf(Map<Slot, ?> slots) {
        if (slots == null) {
            throw new IllegalArgumentException("slots must not be null");
        }
        // Natural order (= code order), never the argument's comparator.
        TreeMap<Slot, Object> copy = new TreeMap<>();
        for (Map.Entry<Slot, ?> e : slots.entrySet()) {
            Slot slot = e.getKey();
            Object v = e.getValue();
            if (slot == null) {
                throw new IllegalArgumentException("slot key must not be null");
            }
            checkValue(slot, v);
            copy.put(slot, v);
        }
        return Collections.unmodifiableSortedMap(copy);
    }

    private static void checkValue(Slot slot, Object v) {
        if (v == null) {
            throw new IllegalArgumentException("slot " + slot + " has a null value");
        }
        if (slot.isString()) {
            if (!(v instanceof String s)) {
                throw new IllegalArgumentException(
                        "slot " + slot + " needs a String, got " + v.getClass().getSimpleName());
            }
            int bad = badCharIndex(s);
            if (bad >= 0) {
                throw new IllegalArgumentException(
                        "slot %s has %s at index %d".formatted(slot, describeBadChar(s, bad), bad));
            }
        } else {
            if (!(v instanceof Long n)) {
                throw new IllegalArgumentException(
                        "slot " + slot + " needs a Long, got " + v.getClass().getSimpleName());
            }
            if (n < 0) {
                throw new IllegalArgumentException("slot " + slot + " must be non-negative, got " + n);
            }
        }
    }

    private static void nonNegative(String field, long v) {
        if (v < 0) {
            throw new IllegalArgumentException(field + " must be non-negative, got " + v);
        }
    }

    /** Index of the first char a string slot may not hold (ISO control, unpaired surrogate), or -1. */
    static int badCharIndex(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isISOControl(c)) {
                return i;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            } else if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** What is wrong with the char at {@code i}, for messages. */
    static String describeBadChar(CharSequence s, int i) {
        char c = s.charAt(i);
        return (Character.isISOControl(c) ? "control character" : "unpaired surrogate") + " U+%04X".formatted((int) c);
    }
}
