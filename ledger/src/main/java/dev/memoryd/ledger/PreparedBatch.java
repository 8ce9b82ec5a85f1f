package dev.memoryd.ledger;

import java.util.ArrayList;
import java.util.List;

/**
 * The lines a {@link Chain} prepared and has not written yet, in seq order, with where they end
 * (seq, line hash, chain id), the key ring in use before the first of them, and how many of them
 * the chain has reported as segment bytes.
 *
 * <p>Not thread-safe: owned by one chain, whose caller serializes every call. Holds no file.
 */
final class PreparedBatch {
    private final List<byte[]> lines = new ArrayList<>();
    private long seq;
    private String hash;
    private String chainId;
    private KeyRing keysBefore;
    private int reported;

    /** Whether nothing was prepared since the batch was last forgotten. */
    boolean unstarted() {
        return lines.isEmpty() && keysBefore == null;
    }

    /** Starts on top of the head ({@code headSeq}, {@code headHash}), signing with {@code keys} so far. */
    void start(long headSeq, String headHash, String headChainId, KeyRing keys) {
        seq = headSeq;
        hash = headHash;
        chainId = headChainId;
        keysBefore = keys;
    }

    /** Adds {@code more} lines, the last of which has {@code lastSeq} and {@code lastHash}. */
    void add(List<byte[]> more, long lastSeq, String lastHash, String id) {
        lines.addAll(more);
        seq = lastSeq;
        hash = lastHash;
        chainId = id;
    }

    List<byte[]> lines() {
        return lines;
    }

    long seq() {
        return seq;
    }

    String hash() {
        return hash;
    }

    String chainId() {
        return chainId;
    }

    /** The key ring before the batch started, or null when it has not. */
    KeyRing keysBefore() {
        return keysBefore;
    }

    /** How many lines have been reported as segment bytes. */
    int reported() {
        return reported;
    }

    void reportedAll() {
        reported = lines.size();
    }

    void forget() {
        lines.clear();
        keysBefore = null;
        reported = 0;
    }
}
