package dev.memoryd.grammar.slices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StalenessTest {

    private static final Instant NOW = Instant.parse("2026-11-21T10:00:00Z");

    private static Instant daysAgo(double d) {
        return NOW.minusMillis((long) (d * 86_400_000L));
    }

    @Test
    void decay_matchesTheSpecsNumbersWithA90DayHalfLife() {
        assertEquals(0.0, Staleness.time(NOW, NOW).staleness(), 1e-12);
        assertEquals(0.29, Staleness.time(daysAgo(45), NOW).staleness(), 0.005);
        assertEquals(0.5, Staleness.time(daysAgo(90), NOW).staleness(), 1e-12);
        assertEquals(0.75, Staleness.time(daysAgo(180), NOW).staleness(), 1e-12);
    }

    @Test
    void halfLife_isConfigurable() {
        assertEquals(0.5, Staleness.decay(daysAgo(30), NOW, Duration.ofDays(30)), 1e-12);
        assertEquals(0.75, Staleness.decay(daysAgo(60), NOW, Duration.ofDays(30)), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> Staleness.decay(NOW, NOW, Duration.ZERO));
    }

    @Test
    void label_isStaleFromOneHalfLife() {
        assertEquals(Staleness.Label.FRESH, Staleness.time(daysAgo(89.9), NOW).label());
        assertEquals(Staleness.Label.STALE, Staleness.time(daysAgo(90), NOW).label());
        assertEquals(
                Staleness.Label.STALE,
                Staleness.time(daysAgo(10), NOW, Duration.ofDays(7)).label());
    }

    @Test
    void tags_readLikeTheSpecsSearchOutput() {
        assertEquals("[FRESH - 2 days ago]", Staleness.time(daysAgo(2), NOW).tag());
        assertEquals("[STALE - 3 months ago]", Staleness.time(daysAgo(92), NOW).tag());
    }

    @Test
    void humanAge_usesTheLargestWholeUnit() {
        assertEquals("just now", Staleness.humanAge(NOW.minusSeconds(59), NOW));
        assertEquals("1 minute ago", Staleness.humanAge(NOW.minusSeconds(60), NOW));
        assertEquals("5 hours ago", Staleness.humanAge(NOW.minusSeconds(5 * 3600 + 10), NOW));
        assertEquals("1 day ago", Staleness.humanAge(daysAgo(1), NOW));
        assertEquals("29 days ago", Staleness.humanAge(daysAgo(29.9), NOW));
        assertEquals("1 month ago", Staleness.humanAge(daysAgo(30), NOW));
        assertEquals("12 months ago", Staleness.humanAge(daysAgo(364), NOW));
        assertEquals("2 years ago", Staleness.humanAge(daysAgo(800), NOW));
    }

    @Test
    void futureTimestamps_countAsFresh() {
        Staleness.TimeStaleness t = Staleness.time(NOW.plusSeconds(3600), NOW);
        assertEquals(0.0, t.staleness());
        assertEquals("just now", t.age());
    }

    @Test
    void derivedSlice_isStaleWhenTheSourceHashChanged() {
        String recorded = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assertEquals(recorded, Staleness.sha256(new byte[0]));
        var slice = SliceFile.parse(SliceValidatorTest.resource("slices/examples/derived-summary.slice"))
                .slice()
                .orElseThrow();
        Map<String, String> same = Map.of("01JDUMP00000000000000001", recorded);
        Map<String, String> changed =
                Map.of("01JDUMP00000000000000001", Staleness.sha256("new dump".getBytes(StandardCharsets.UTF_8)));
        assertEquals(
                Staleness.DerivedStatus.FRESH,
                Staleness.derived(slice, id -> Optional.ofNullable(same.get(id)))
                        .orElseThrow()
                        .status());
        assertEquals(
                Staleness.DerivedStatus.STALE,
                Staleness.derived(slice, id -> Optional.ofNullable(changed.get(id)))
                        .orElseThrow()
                        .status());
        assertEquals(
                Staleness.DerivedStatus.SOURCE_MISSING,
                Staleness.derived(slice, id -> Optional.empty()).orElseThrow().status());
        assertTrue(Staleness.derived(SliceValidatorTest.base(""), id -> Optional.empty())
                .isEmpty());
        assertTrue(!Staleness.isStale(
                recorded, recorded.toUpperCase(java.util.Locale.ROOT).replace("SHA256", "sha256")));
    }
}
