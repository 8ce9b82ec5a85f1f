package dev.memoryd.grammar.slices;

import com.fasterxml.jackson.databind.JsonNode;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Function;

/**
 * Staleness of slices: hash-based for derived slices, time-based decay for all.
 * Pure; the clock is a parameter ({@code now}). Thread-safe.
 *
 * <p>Hash-based: a slice with {@code derived_from {id, hash}} is {@link DerivedStatus#STALE}
 * when its source's current hash differs from the recorded one (compared ignoring case),
 * {@link DerivedStatus#SOURCE_MISSING} when the source is unknown, else
 * {@link DerivedStatus#FRESH}. Hashes are {@code sha256:<64 hex>} ({@link #sha256}).
 *
 * <p>Time-based: {@code staleness = 1 - 0.5^(days / halfLifeDays)} where {@code days} is
 * the fractional number of days (86,400 s) from {@code lastUpdated} to {@code now}, clamped
 * at 0 for timestamps in the future. The half-life defaults to 90 days
 * ({@link #DEFAULT_HALF_LIFE}). The label is {@link Label#STALE} when
 * {@code staleness >= 0.5} ({@link #STALE_THRESHOLD}), i.e. when the slice is at least one
 * half-life old, else {@link Label#FRESH}.
 *
 * <p>Human age ({@link #humanAge}): under a minute "just now"; then whole minutes, hours
 * (under a day), days (under 30 days), months of 30 days (under 365 days), else years of
 * 365 days, each rounded down, e.g. "1 day ago", "2 days ago", "3 months ago".
 */
public final class Staleness {

    /** The default half-life: 90 days. */
    public static final Duration DEFAULT_HALF_LIFE = Duration.ofDays(90);
    /** Staleness at or above this is labelled STALE. */
    public static final double STALE_THRESHOLD = 0.5;

    /** Time-based label. */
    public enum Label {
        FRESH,
        STALE
    }

    /** Hash-based status of a derived slice. */
    public enum DerivedStatus {
        FRESH,
        STALE,
        SOURCE_MISSING
    }

    /**
     * Time-based staleness.
     *
     * @param staleness in [0, 1)
     * @param label     STALE when {@code staleness >= STALE_THRESHOLD}
     * @param age       human age, e.g. "2 days ago"
     */
    public record TimeStaleness(double staleness, Label label, String age) {
        /** E.g. {@code [FRESH - 2 days ago]}. */
        public String tag() {
            return "[" + label + " - " + age + "]";
        }
    }

    /**
     * Hash-based check of a derived slice.
     *
     * @param sourceId     {@code derived_from.id}
     * @param recordedHash {@code derived_from.hash}
     * @param currentHash  the source's current hash, if known
     * @param status       the verdict
     */
    public record DerivedCheck(
            String sourceId, String recordedHash, Optional<String> currentHash, DerivedStatus status) {}

    private Staleness() {}

    /** {@code 1 - 0.5^(days / halfLife days)}; 0 for {@code lastUpdated} at or after {@code now}. */
    public static double decay(Instant lastUpdated, Instant now, Duration halfLife) {
        if (halfLife.isNegative() || halfLife.isZero()) {
            throw new IllegalArgumentException("half-life must be positive: " + halfLife);
        }
        double days = Math.max(0, Duration.between(lastUpdated, now).toMillis()) / 86_400_000.0;
        double half = halfLife.toMillis() / 86_400_000.0;
        return 1 - Math.pow(0.5, days / half);
    }

    /** Time-based staleness with the default 90-day half-life. */
    public static TimeStaleness time(Instant lastUpdated, Instant now) {
        return time(lastUpdated, now, DEFAULT_HALF_LIFE);
    }

    /** Time-based staleness with the given half-life. */
    public static TimeStaleness time(Instant lastUpdated, Instant now, Duration halfLife) {
        double s = decay(lastUpdated, now, halfLife);
        return new TimeStaleness(s, s >= STALE_THRESHOLD ? Label.STALE : Label.FRESH, humanAge(lastUpdated, now));
    }

    /** The human age of {@code then} seen at {@code now} (see the class comment). */
    public static String humanAge(Instant then, Instant now) {
        long secs = Math.max(0, Duration.between(then, now).getSeconds());
        if (secs < 60) {
            return "just now";
        }
        long days = secs / 86_400;
        if (secs < 3_600) {
            return plural(secs / 60, "minute");
        }
        if (days < 1) {
            return plural(secs / 3_600, "hour");
        }
        if (days < 30) {
            return plural(days, "day");
        }
        if (days < 365) {
            return plural(days / 30, "month");
        }
        return plural(days / 365, "year");
    }

    private static String plural(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s") + " ago";
    }

    /** Whether a derived slice is stale: the hashes differ (ignoring case). */
    public static boolean isStale(String recordedHash, String currentHash) {
        return !recordedHash.equalsIgnoreCase(currentHash);
    }

    /**
     * Checks a {@code slice:} mapping's {@code derived_from} against the current hashes;
     * empty when the slice has no complete {@code derived_from}.
     *
     * @param currentHashOf the current hash of a source slice by id, empty if unknown
     */
    public static Optional<DerivedCheck> derived(JsonNode slice, Function<String, Optional<String>> currentHashOf) {
        JsonNode df = slice == null ? null : slice.get("derived_from");
        if (df == null
                || !df.isObject()
                || !df.path("id").isValueNode()
                || !df.path("hash").isValueNode()) {
            return Optional.empty();
        }
        String id = df.get("id").asText();
        String recorded = df.get("hash").asText();
        Optional<String> current = currentHashOf.apply(id);
        DerivedStatus st = current.isEmpty()
                ? DerivedStatus.SOURCE_MISSING
                : isStale(recorded, current.get()) ? DerivedStatus.STALE : DerivedStatus.FRESH;
        return Optional.of(new DerivedCheck(id, recorded, current, st));
    }

    /** {@code sha256:} followed by the lowercase hex SHA-256 of {@code bytes}. */
    public static String sha256(byte[] bytes) {
        try {
            return "sha256:"
                    + HexFormat.of()
                            .formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
