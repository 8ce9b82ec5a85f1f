package dev.memoryd.bench;

/** The figures a scenario reports: percentiles of sorted latencies, rounded to microseconds. */
final class Stats {
    private Stats() {}

    /** {@code d} rounded to 3 decimals. */
    static double round(double d) {
        return Math.round(d * 1000) / 1000.0;
    }

    /** Nanoseconds as milliseconds, to 3 decimals. */
    static double ms(long nanos) {
        return round(nanos / 1e6);
    }

    /** The median of ascending {@code sorted}, the upper one of an even count. */
    static long p50(long[] sorted) {
        return sorted[sorted.length / 2];
    }

    /** The 99th percentile of ascending {@code sorted} (nearest rank). */
    static long p99(long[] sorted) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
    }
}
