package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import java.util.Map;
import java.util.Optional;

/**
 * The first outcome recorded under an idempotency key, with the fingerprint of the declaration
 * that had it ({@link WriteRequest#fingerprint}; null for keys recorded before fingerprints were,
 * whose repeats are not compared). A repeat gets that outcome only when it is the same
 * declaration: the same key with other ops or another rationale is a client's mistake, and
 * answering it with the first outcome would tell it that ops nobody wrote were written.
 */
record IdempotentWrite(String fingerprint, WriteOutcome outcome) {
    /** What {@code repeat}, sent with {@code key}, is answered: the first outcome, or a refusal naming the key. */
    WriteOutcome answer(String key, WriteRequest repeat) {
        return mismatch(key, fingerprint, repeat).map(WriteOutcome.class::cast).orElse(replayed(outcome));
    }

    /** {@code first} as a repeat is answered: a committed write says it is a replay ({@code idempotent_replay}). */
    static WriteOutcome replayed(WriteOutcome first) {
        return first instanceof WriteOutcome.Committed c
                ? new WriteOutcome.Committed(c.commit(), c.events(), true, c.proposal())
                : first;
    }

    /**
     * The refusal of {@code repeat}, sent with {@code key}, when the declaration first sent with it
     * had another fingerprint than {@code first}; empty when they match or either has none.
     */
    static Optional<WriteOutcome.Rejected> mismatch(String key, String first, WriteRequest repeat) {
        String other = repeat.fingerprint();
        if (first == null || other == null || first.equals(other)) {
            return Optional.empty();
        }
        return Optional.of(new WriteOutcome.Rejected(
                -1,
                new Failure(
                        ErrorReason.INVALID_REQUEST,
                        "idempotency_key '" + key + "' was already used for another declaration (other ops or"
                                + " another rationale); a repeat must send the same declaration, and a new"
                                + " declaration needs a new key; nothing was written",
                        Map.of("field", "params.idempotency_key"))));
    }
}
