package dev.memoryd.grammar.slip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VocabularyTest {

    @Test
    void acts_areCodedByTheirPositionInTheSpec() {
        List<String> spec = List.of(
                "OBSERVE", "INFORM", "ASK", "REQUEST", "PROPOSE", "COMMIT", "ACCEPT", "REJECT", "EVAL", "ERROR",
                "META");
        assertEquals(spec.size(), Act.values().length);
        for (int i = 0; i < spec.size(); i++) {
            Act a = Act.byName(spec.get(i)).orElseThrow();
            assertEquals(i, a.code());
            assertEquals(Optional.of(a), Act.byCode(i));
        }
        assertEquals(Optional.empty(), Act.byCode(11));
        assertEquals(Optional.empty(), Act.byCode(-1));
        assertEquals(Optional.empty(), Act.byName("request"));
    }

    @Test
    void frameTypes_areCodedByTheirPositionInTheSpec() {
        List<String> spec = List.of("TASK", "PLAN", "OBSERVATION", "EVALUATION", "CONTROL");
        assertEquals(spec.size(), FrameType.values().length);
        for (int i = 0; i < spec.size(); i++) {
            FrameType f = FrameType.byName(spec.get(i)).orElseThrow();
            assertEquals(i, f.code());
            assertEquals(Optional.of(f), FrameType.byCode(i));
        }
        assertEquals(Optional.empty(), FrameType.byCode(5));
        assertEquals(Optional.empty(), FrameType.byName("Task"));
    }

    @Test
    void slots_areCodedByPositionWithTheSpecsPrefixesAndTypes() {
        List<String> spec = List.of(
                "GOAL_ID g",
                "TASK_ID k",
                "PARENT_TASK_ID p",
                "RESULT_ID r",
                "PRIORITY q",
                "SCORE s",
                "STATUS u",
                "ERROR_CODE e",
                "TAG t");
        assertEquals(spec.size(), Slot.values().length);
        for (int i = 0; i < spec.size(); i++) {
            String[] p = spec.get(i).split(" ");
            Slot s = Slot.byName(p[0]).orElseThrow();
            assertEquals(i, s.code());
            assertEquals(p[1].charAt(0), s.prefix());
            assertEquals(Optional.of(s), Slot.byCode(i));
            assertEquals(Optional.of(s), Slot.byPrefix(s.prefix()));
            boolean string = s == Slot.STATUS || s == Slot.TAG;
            assertEquals(string, s.isString(), s.name());
            assertEquals(string ? String.class : Long.class, s.valueType());
        }
        assertEquals(Optional.empty(), Slot.byCode(9));
        assertEquals(Optional.empty(), Slot.byPrefix('x'));
    }

    @Test
    void slotPrefixes_areDistinctAndNeverAHeaderPrefix() {
        Set<Character> seen = new HashSet<>();
        for (Slot s : Slot.values()) {
            assertTrue(seen.add(s.prefix()), s.name());
            assertFalse(Nslip.HEADER.indexOf(s.prefix()) >= 0, s.name());
        }
    }
}
