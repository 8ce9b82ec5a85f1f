package dev.memoryd.daemon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FailureTest {

    @Test
    void details_keepTheOrderTheyWereGivenIn_whateverTheKeys() {
        for (int n = 0; n < 50; n++) {
            Map<String, Object> given = new LinkedHashMap<>();
            List<String> order = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String k = "k" + ((i * 7 + n * 13) % 97) + "_" + n;
                given.put(k, i);
                order.add(k);
            }
            Failure f = new Failure(ErrorReason.SPEC_VIOLATION, "m", given);
            assertEquals(order, List.copyOf(f.details().keySet()));
        }
    }

    @Test
    void aSpecViolationsDetails_comeInTheDocumentedOrder() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("rule", "name");
        d.put("chunk", "01J0000000000000000000000A");
        d.put("chunk_name", "x");
        d.put("scope", "topic");
        assertEquals(
                List.of("rule", "chunk", "chunk_name", "scope"),
                List.copyOf(new Failure(ErrorReason.SPEC_VIOLATION, "m", d)
                        .details()
                        .keySet()));
    }

    @Test
    void ordered_keepsItsArgumentsOrder_andRefusesARepeatedKey() {
        assertEquals(
                List.of("segment", "line", "kept", "recorded"),
                List.copyOf(Failure.ordered("segment", "a", "line", 1, "kept", 0, "recorded", false)
                        .keySet()));
        assertEquals(
                List.of("rule", "routine", "line"),
                List.copyOf(
                        Failure.ordered("rule", "r", "routine", "x", "line", 3).keySet()));
        assertThrows(IllegalArgumentException.class, () -> Failure.ordered("field", "a", "field", "b"));
    }

    @Test
    void details_areACopy_thatCannotBeChanged_andHoldNoNull() {
        Map<String, Object> given = new LinkedHashMap<>();
        given.put("a", 1);
        Failure f = new Failure(ErrorReason.CONFLICT, "m", given);
        given.put("b", 2);
        assertEquals(List.of("a"), List.copyOf(f.details().keySet()));
        assertThrows(UnsupportedOperationException.class, () -> f.details().put("c", 3));
        Map<String, Object> withNull = new LinkedHashMap<>();
        withNull.put("a", null);
        assertThrows(NullPointerException.class, () -> new Failure(ErrorReason.CONFLICT, "m", withNull));
        assertEquals(Map.of(), new Failure(ErrorReason.CONFLICT, "m", null).details());
    }
}
