package dev.memoryd.ledger;

import java.util.Objects;

/**
 * Ledger tuning and injected sources. {@code segmentLines} (default 128) is how many lines a
 * segment file holds; it must stay the same for the life of a ledger ({@link Ledger#open}
 * refuses a mismatch). {@code ids} generates chain ids. Immutable value.
 */
public record LedgerOptions(int segmentLines, IdGenerator ids) {
    public static final int DEFAULT_SEGMENT_LINES = 128;

    public LedgerOptions {
        if (segmentLines < 1) {
            throw new IllegalArgumentException("segmentLines must be >= 1");
        }
        Objects.requireNonNull(ids, "ids");
    }

    /** 128 lines per segment, ids from {@code ids}. */
    public static LedgerOptions defaults(IdGenerator ids) {
        return new LedgerOptions(DEFAULT_SEGMENT_LINES, ids);
    }

    /** 128 lines per segment, ids from the system clock and a SecureRandom. */
    public static LedgerOptions defaults() {
        return defaults(IdGenerator.system());
    }

    public LedgerOptions withSegmentLines(int lines) {
        return new LedgerOptions(lines, ids);
    }
}
