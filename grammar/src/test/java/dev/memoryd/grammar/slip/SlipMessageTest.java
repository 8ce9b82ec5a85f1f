package dev.memoryd.grammar.slip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SlipMessageTest {

    private static SlipMessage withSlots(Map<Slot, ?> slots) {
        return SlipMessage.of(1, 2, 3, 4, Act.INFORM, FrameType.PLAN, slots);
    }

    private static void rejected(Runnable r, String fragment) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    void negativeHeaderIntegers_areRejectedNamingTheField() {
        rejected(() -> SlipMessage.of(-1, 0, 0, 0, Act.ASK, FrameType.TASK, Map.of()), "conv_id");
        rejected(() -> SlipMessage.of(0, -1, 0, 0, Act.ASK, FrameType.TASK, Map.of()), "turn");
        rejected(() -> SlipMessage.of(0, 0, -1, 0, Act.ASK, FrameType.TASK, Map.of()), "src");
        rejected(() -> SlipMessage.of(0, 0, 0, Long.MIN_VALUE, Act.ASK, FrameType.TASK, Map.of()), "dst");
    }

    @Test
    void nullActFrameOrSlots_areRejected() {
        rejected(() -> SlipMessage.of(0, 0, 0, 0, null, FrameType.TASK, Map.of()), "act");
        rejected(() -> SlipMessage.of(0, 0, 0, 0, Act.ASK, null, Map.of()), "frame");
        rejected(() -> new SlipMessage(0, 0, 0, 0, Act.ASK, FrameType.TASK, null), "slots");
    }

    @Test
    void slotValues_mustHaveTheSlotsType() {
        rejected(() -> withSlots(Map.of(Slot.GOAL_ID, 1)), "needs a Long, got Integer");
        rejected(() -> withSlots(Map.of(Slot.GOAL_ID, "1")), "needs a Long");
        rejected(() -> withSlots(Map.of(Slot.TAG, 1L)), "needs a String");
        rejected(() -> withSlots(Map.of(Slot.STATUS, 'x')), "needs a String");
        rejected(() -> withSlots(Map.of(Slot.SCORE, -5L)), "non-negative");
        Map<Slot, Object> withNull = new HashMap<>();
        withNull.put(Slot.TASK_ID, null);
        rejected(() -> withSlots(withNull), "null value");
    }

    @Test
    void stringSlots_rejectControlCharsAndUnpairedSurrogates() {
        rejected(() -> withSlots(Map.of(Slot.TAG, "a\nb")), "control character U+000A at index 1");
        rejected(() -> withSlots(Map.of(Slot.TAG, "\u007f")), "U+007F");
        rejected(() -> withSlots(Map.of(Slot.STATUS, "x\ud800")), "unpaired surrogate U+D800 at index 1");
        rejected(() -> withSlots(Map.of(Slot.STATUS, "\udc00x")), "unpaired surrogate");
        assertEquals(
                "\ud83d\ude00",
                withSlots(Map.of(Slot.TAG, "\ud83d\ude00")).slots().get(Slot.TAG));
    }

    @Test
    void slots_areCopiedIntoCodeOrderAndUnmodifiable() {
        SortedMap<Slot, Object> reversed = new TreeMap<>(Collections.reverseOrder());
        reversed.put(Slot.GOAL_ID, 1L);
        reversed.put(Slot.TAG, "t");
        reversed.put(Slot.SCORE, 9L);
        SlipMessage m = new SlipMessage(0, 0, 0, 0, Act.EVAL, FrameType.EVALUATION, reversed);
        assertEquals(
                List.of(Slot.GOAL_ID, Slot.SCORE, Slot.TAG),
                List.copyOf(m.slots().keySet()));
        reversed.put(Slot.TASK_ID, 2L);
        assertEquals(3, m.slots().size());
        assertThrows(UnsupportedOperationException.class, () -> m.slots().put(Slot.TASK_ID, 2L));
    }

    @Test
    void equalContent_isEqualWhateverTheArgumentMapType() {
        assertEquals(
                withSlots(Map.of(Slot.GOAL_ID, 1L, Slot.TAG, "x")),
                withSlots(new HashMap<>(Map.of(Slot.TAG, "x", Slot.GOAL_ID, 1L))));
    }
}
