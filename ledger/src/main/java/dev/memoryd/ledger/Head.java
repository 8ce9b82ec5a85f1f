package dev.memoryd.ledger;

import java.util.Objects;

/**
 * The last line of a chain: its {@code seq} and {@code line_hash}; {@code (0, 64 zeros)} for an
 * empty chain. The daemon records it in Git commit trailers so {@link Verifier} can detect whole
 * trailing lines cut off. Immutable value.
 */
public record Head(long seq, String lineHash) {
    /** The head of an empty chain. */
    public static final Head EMPTY = new Head(0, Integrity.GENESIS_PREV);

    public Head {
        Objects.requireNonNull(lineHash, "lineHash");
        if (seq < 0) {
            throw new IllegalArgumentException("seq must be >= 0");
        }
        if (!Hex.isLowerHex(lineHash, 64)) {
            throw new IllegalArgumentException("lineHash must be 64 lowercase hex chars");
        }
    }
}
