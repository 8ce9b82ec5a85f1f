package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ValuesTest {
    @Test
    void eventIdAcceptsCanonicalUlidsOnly() {
        assertDoesNotThrow(() -> EventId.of("01JGZ5P0000000000000000000"));
        for (String bad : new String[] {"", "01JGZ5P000000000000000000", "81JGZ5P0000000000000000000",
            "01jgz5p0000000000000000000", "01JGZ5P000000000000000000I", "01JGZ5P000000000000000000U"}) {
            assertThrows(IllegalArgumentException.class, () -> EventId.of(bad), bad);
        }
    }

    @Test
    void evidenceTokenIsTimestampAndEventId() {
        EventId id = EventId.of("01JGZ5P0000000000000000000");
        EvidenceToken t = EvidenceToken.of(Instant.parse("2025-01-02T03:04:05.987Z"), id);
        assertEquals("ev:20250102T030405Z-01JGZ5P0000000000000000000", t.value());
        assertEquals(id, t.eventId());
        assertEquals(t, EvidenceToken.parse(t.value()));
        assertThrows(IllegalArgumentException.class, () -> EvidenceToken.parse("ev:2025-01-02T03:04:05Z-01JGZ5P0000000000000000000"));
        assertThrows(IllegalArgumentException.class, () -> EvidenceToken.parse("ev:20250102T030405Z-01JGZ5P000000000000000000"));
    }

    @Test
    void branchNameAllowsSlashesButRejectsUnsafeRefs() {
        for (String ok : new String[] {"main", "proposals/01JGZ5P0000000000000000000", "feature/a-b_c.d", "v1.2"}) {
            assertEquals(ok, BranchName.of(ok).value());
        }
        for (String bad : new String[] {"", "a..b", "/a", "a/", "a//b", "a b", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b",
            "a\\b", "a@{b", "a.lock", "a/b.lock", "a.", "a\tb", "a\u007fb", ".hidden", "a/.b", "@"}) {
            assertThrows(IllegalArgumentException.class, () -> BranchName.of(bad), bad);
        }
    }

    @Test
    void idGeneratorIsDeterministicAndMonotonicWithinAMillisecond() {
        IdGenerator a = Fixtures.ids(5);
        IdGenerator b = Fixtures.ids(5);
        EventId prev = a.next();
        assertEquals(prev, b.next());
        assertEquals(Fixtures.T0, prev.timestamp());
        for (int i = 0; i < 1000; i++) {
            EventId next = a.next();
            assertTrue(next.value().compareTo(prev.value()) > 0, next + " after " + prev);
            assertEquals(Fixtures.T0, next.timestamp());
            prev = next;
        }
    }
}
