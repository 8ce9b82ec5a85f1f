package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventTest {
    static Event sample() {
        EventDraft d = Fixtures.draft(Fixtures.ids(1), "main", 3);
        return new Event(
                1,
                d.eventId(),
                d.ts(),
                d.branch(),
                Fixtures.ids(2).next().value(),
                d.actor(),
                null,
                null,
                null,
                null,
                d.op(),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                new Integrity(Integrity.GENESIS_PREV, "c".repeat(64), Integrity.ALGO, 1));
    }

    @Test
    void writesEveryFieldWithNullsAsJsonNull() {
        ObjectNode json = sample().toJson();
        assertEquals(Event.FIELDS.size(), json.size());
        for (String f : Event.FIELDS) {
            assertTrue(json.has(f), f);
        }
        assertTrue(json.get("user_id").isNull());
        assertTrue(json.get("payload").isNull());
        assertTrue(json.get("evidence_refs").isNull());
        assertEquals(4, json.get("integrity").size());
    }

    @Test
    void roundTripsThroughJson() {
        Event e = sample();
        assertEquals(e, Event.fromJson(e.toJson()));
        EventDraft d = Fixtures.draft(Fixtures.ids(1), "main", 3);
        Event full = d.toEvent(
                7, Fixtures.ids(2).next().value(), new Integrity("d".repeat(64), "e".repeat(64), Integrity.ALGO, 1));
        assertEquals(full, Event.fromJson(full.toJson()));
    }

    @Test
    void fromJsonNamesAMissingField() {
        for (String f : List.of("seq", "tool_call_id", "payload")) {
            ObjectNode json = sample().toJson();
            json.remove(f);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Event.fromJson(json));
            assertTrue(e.getMessage().contains("\"" + f + "\""), e.getMessage());
        }
        ObjectNode json = sample().toJson();
        ((ObjectNode) json.get("integrity")).remove("prev");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Event.fromJson(json));
        assertTrue(e.getMessage().contains("integrity.prev"), e.getMessage());
    }

    @Test
    void fromJsonRejectsUnknownFieldsAndWrongTypes() {
        ObjectNode extra = sample().toJson();
        extra.put("surprise", 1);
        assertThrows(IllegalArgumentException.class, () -> Event.fromJson(extra));
        ObjectNode wrong = sample().toJson();
        wrong.put("actor", 5);
        assertThrows(IllegalArgumentException.class, () -> Event.fromJson(wrong));
        ObjectNode nullId = sample().toJson();
        nullId.putNull("event_id");
        assertThrows(IllegalArgumentException.class, () -> Event.fromJson(nullId));
    }

    @Test
    void tokenUsesTheSecondOfTsAndTheEventId() {
        Event e = sample();
        assertEquals("ev:20250102T030405Z-" + e.eventId(), e.token().value());
    }
}
