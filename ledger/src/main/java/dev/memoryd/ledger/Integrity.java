package dev.memoryd.ledger;

import java.util.Objects;

/**
 * The {@code integrity} member of a ledger line: {@code prev} (the previous line's
 * {@code line_hash} in the chain, 64 zeros for the first line), {@code line_hash} (lowercase
 * hex HMAC-SHA256, see {@link Event}), {@code algo} (always {@code HMAC-SHA256}) and
 * {@code salt_version} (which key version's line key signed it). Immutable value.
 */
public record Integrity(String prev, String lineHash, String algo, int saltVersion) {
    /** The only algorithm this ledger writes. */
    public static final String ALGO = "HMAC-SHA256";
    /** {@code prev} of a chain's first line. */
    public static final String GENESIS_PREV = "0".repeat(64);

    public Integrity {
        Objects.requireNonNull(prev, "integrity.prev");
        Objects.requireNonNull(lineHash, "integrity.line_hash");
        Objects.requireNonNull(algo, "integrity.algo");
        if (!Hex.isLowerHex(prev, 64)) {
            throw new IllegalArgumentException("integrity.prev must be 64 lowercase hex chars");
        }
        if (!Hex.isLowerHex(lineHash, 64)) {
            throw new IllegalArgumentException("integrity.line_hash must be 64 lowercase hex chars");
        }
        if (saltVersion < 1) {
            throw new IllegalArgumentException("integrity.salt_version must be >= 1");
        }
    }
}
