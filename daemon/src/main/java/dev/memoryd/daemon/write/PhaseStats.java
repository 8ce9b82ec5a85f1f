package dev.memoryd.daemon.write;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Cumulative time spent in each step of the write path, so benchmarks can say which dominates. */
public final class PhaseStats {
    public enum Phase {
        REF_LOCK,
        APPLY,
        LEDGER_APPEND,
        LEDGER_FSYNC,
        FILES,
        GIT_COMMIT,
        GIT_FLUSH,
        WAIT_DURABLE,
        FILES_RENAME,
        FILES_PLACE,
        GIT_REF,
        INDEX,
        INDEX_LOCK,
        INDEX_CHECK,
        SEGMENT_WRITE,
        INDEX_HELD,
        COMPACT,
        INDEX_PREPARE
    }

    /** Batches counted by what they did while they held git's index lock. */
    public enum Count {
        /** Read the index or the batch's files under the lock, to tell whether git rewrote them. */
        LOCKED_INDEX_READS,
        /** Edited the index under the lock, having no index prepared before it. */
        LOCKED_INDEX_EDITS,
        /**
         * Took the branch's ref lock (a write, or a capture of humans' edits and commits): each is a
         * moment a git command on the branch can meet it.
         */
        REF_LOCKS
    }

    private final LongAdder[] counts = new LongAdder[Count.values().length];
    private final LongAdder[] nanos = new LongAdder[Phase.values().length];
    private final LongAdder batches = new LongAdder();
    private final LongAdder declarations = new LongAdder();

    PhaseStats() {
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = new LongAdder();
        }
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    void add(Phase p, long ns) {
        nanos[p.ordinal()].add(ns);
    }

    void count(Count c) {
        counts[c.ordinal()].increment();
    }

    void batch(int decls) {
        batches.increment();
        declarations.add(decls);
    }

    /** Milliseconds per phase summed over all batches, plus batch, declaration and {@link Count} counts. */
    public Map<String, Object> snapshot() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batches", batches.sum());
        m.put("declarations", declarations.sum());
        for (Phase p : Phase.values()) {
            m.put(p.name().toLowerCase() + "_ms", nanos[p.ordinal()].sum() / 1e6);
        }
        for (Count c : Count.values()) {
            m.put(c.name().toLowerCase(), counts[c.ordinal()].sum());
        }
        return m;
    }
}
