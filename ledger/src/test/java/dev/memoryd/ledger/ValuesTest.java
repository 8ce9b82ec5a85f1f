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
        for (String bad : new String[] {
            "",
            "01JGZ5P000000000000000000",
            "81JGZ5P0000000000000000000",
            "01jgz5p0000000000000000000",
            "01JGZ5P000000000000000000I",
            "01JGZ5P000000000000000000U"
        }) {
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
        assertThrows(
                IllegalArgumentException.class,
                () -> EvidenceToken.parse("ev:2025-01-02T03:04:05Z-01JGZ5P0000000000000000000"));
        assertThrows(
                IllegalArgumentException.class,
                () -> EvidenceToken.parse("ev:20250102T030405Z-01JGZ5P000000000000000000"));
    }

    @Test
    void evidenceTokenFromATimestamp_isTheTokenOfTheParsedInstant_forEveryFormInstantParseTakes() {
        EventId id = EventId.of("01JGZ5P0000000000000000000");
        java.util.Random rnd = new java.util.Random(20261126L);
        for (int i = 0; i < 5_000; i++) {
            Instant t = Instant.ofEpochSecond(
                    rnd.nextLong(-62_167_219_200L, 253_402_300_800L),
                    rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(1_000_000_000));
            String ts = t.toString();
            assertEquals(EvidenceToken.of(t, id), EvidenceToken.ofTimestamp(ts, id), ts);
        }
        for (String ts : new String[] {
            "2026-11-26T20:31:30.5Z", "2026-11-26T20:31:30.123456789Z", "2024-02-29T23:59:59Z", "2026-11-26T24:00:00Z"
        }) {
            assertEquals(EvidenceToken.of(Instant.parse(ts), id), EvidenceToken.ofTimestamp(ts, id), ts);
        }
        for (String odd : new String[] {
            "2026-02-30T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-11-26T20:31:30.Z",
            "2026-11-26T20:31:30.1234567890Z",
            "2026-11-26 20:31:30Z",
            "2026-11-26T20:31:30",
            "x"
        }) {
            EvidenceToken want;
            try {
                want = EvidenceToken.of(Instant.parse(odd), id);
            } catch (java.time.format.DateTimeParseException e) {
                assertThrows(
                        java.time.format.DateTimeParseException.class, () -> EvidenceToken.ofTimestamp(odd, id), odd);
                continue;
            }
            assertEquals(want, EvidenceToken.ofTimestamp(odd, id), odd);
        }
    }

    @Test
    void branchNameAllowsSlashesButRejectsUnsafeRefs() {
        for (String ok : new String[] {"main", "proposals/01JGZ5P0000000000000000000", "feature/a-b_c.d", "v1.2"}) {
            assertEquals(ok, BranchName.of(ok).value());
        }
        for (String bad : new String[] {
            "",
            "a..b",
            "/a",
            "a/",
            "a//b",
            "a b",
            "a~b",
            "a^b",
            "a:b",
            "a?b",
            "a*b",
            "a[b",
            "a\\b",
            "a@{b",
            "a.lock",
            "a/b.lock",
            "a.",
            "a\tb",
            "a\u007fb",
            ".hidden",
            "a/.b",
            "@"
        }) {
            assertThrows(IllegalArgumentException.class, () -> BranchName.of(bad), bad);
        }
    }

    @Test
    void branchNameRejectsWhatGitOrTheFileSystemWouldRefuse_namingTheRule() {
        String[][] cases = {
            {"refs/heads/main", "starts with refs/"},
            {"HEAD", "HEAD"},
            {"-x", "starts with -"},
            {"a".repeat(101), "longer than 100 bytes"},
            {"\u00e9".repeat(51), "longer than 100 bytes"},
            {"x\ud800", "lone surrogate U+D800"},
            {"\udc00\ud800", "lone surrogate U+DC00"},
            {"a\u0000b", "control character"},
        };
        for (String[] c : cases) {
            String msg = assertThrows(IllegalArgumentException.class, () -> BranchName.of(c[0]), c[0])
                    .getMessage();
            assertTrue(msg.contains(c[1]), msg);
        }
        assertTrue(
                assertThrows(IllegalArgumentException.class, () -> BranchName.of("y".repeat(300)))
                                .getMessage()
                                .length()
                        < 100,
                "a long name is not echoed back whole");
        assertEquals(100, BranchName.of("a".repeat(100)).value().length());
        assertEquals(
                "feature/\ud83d\ude00", BranchName.of("feature/\ud83d\ude00").value());
        // The limit is the branch's: its replica chain may be longer.
        assertEquals(
                "a".repeat(100) + "@laptop",
                BranchName.of("a".repeat(100)).onReplica("laptop").value());
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
