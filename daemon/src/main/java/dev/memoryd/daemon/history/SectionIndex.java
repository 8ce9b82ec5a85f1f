package dev.memoryd.daemon.history;

import dev.memoryd.daemon.events.BranchMergePayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.HumanEditPayload;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.Head;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Which events of one chain touched which section of which file, kept in memory and brought up to
 * date from the chain on each question (only the lines appended since the last one are read), so a
 * file's sections' last changes or one page of a section's history cost a few segment reads, not a
 * scan of the whole chain.
 *
 * <p>An event touches a section when it names it ({@code section_anchor}, as agents' ops and a
 * human's region edit do) or, for a human's whole-file edit (the import of a file, a reordering),
 * when its {@code payload.changed} lists it; a merge, when its {@code payload.changed} lists the
 * section under the file. A chain cut back (a rolled-back batch, crash recovery)
 * is noticed by the line hash of the last line indexed and the index is rebuilt. Thread-safe.
 */
public final class SectionIndex {
    /** One section's events: their seqs oldest first, and the newest event itself. */
    private static final class Touches {
        long[] seqs = new long[4];
        int size;
        Event last;

        void add(Event e) {
            if (size == seqs.length) {
                seqs = Arrays.copyOf(seqs, size * 2);
            }
            seqs[size++] = e.seq();
            last = e;
        }
    }

    /** A page of one section's events, newest first, and how many there are in all. */
    public record Page(int total, List<Event> events) {}

    private final Supplier<Head> head;
    private final LongFunction<Iterator<Event>> read;
    private final int segmentLines;
    private final Map<String, Map<String, Touches>> files = new HashMap<>();
    private long lastSeq;
    private String lastHash;

    /**
     * @param head the chain's head now
     * @param read the chain's events from a seq on, in order
     * @param segmentLines lines per ledger segment (a page's events are read a segment at a time)
     */
    public SectionIndex(Supplier<Head> head, LongFunction<Iterator<Event>> read, int segmentLines) {
        this.head = head;
        this.read = read;
        this.segmentLines = segmentLines;
    }

    /** Each section of {@code path} that an event touched, in the order first touched, with its newest event. */
    public synchronized Map<String, Event> lastChanges(String path) {
        catchUp();
        Map<String, Event> out = new LinkedHashMap<>();
        files.getOrDefault(path, Map.of()).forEach((anchor, t) -> out.put(anchor, t.last));
        return out;
    }

    /** Events {@code offset} to {@code offset + limit - 1} (newest first) of those that touched section {@code anchor} of {@code path}. */
    public Page history(String path, String anchor, int offset, int limit) {
        long[] want;
        int total;
        synchronized (this) {
            catchUp();
            Touches t = files.getOrDefault(path, Map.of()).get(anchor);
            total = t == null ? 0 : t.size;
            int to = Math.max(0, total - offset);
            int from = Math.max(0, to - limit);
            want = t == null ? new long[0] : Arrays.copyOfRange(t.seqs, from, to);
        }
        List<Event> events = fetch(want);
        java.util.Collections.reverse(events);
        return new Page(total, events);
    }

    /** The events with seqs {@code want} (ascending), each segment read once. */
    private List<Event> fetch(long[] want) {
        List<Event> out = new ArrayList<>(want.length);
        int i = 0;
        while (i < want.length) {
            long segment = (want[i] - 1) / segmentLines;
            Iterator<Event> it = read.apply(want[i]);
            while (i < want.length && (want[i] - 1) / segmentLines == segment && it.hasNext()) {
                Event e = it.next();
                if (e.seq() == want[i]) {
                    out.add(e);
                    i++;
                }
            }
            if (i < want.length && (want[i] - 1) / segmentLines == segment) {
                throw new IllegalStateException("ledger line " + want[i] + " is indexed but the chain ends before it");
            }
        }
        return out;
    }

    private void catchUp() {
        Head h = head.get();
        if (h.seq() == lastSeq && h.lineHash().equals(lastHash)) {
            return;
        }
        if (h.seq() < lastSeq) {
            reset();
        }
        Iterator<Event> it = read.apply(Math.max(1, lastSeq));
        if (lastSeq > 0) {
            Event at = it.hasNext() ? it.next() : null;
            if (at == null || at.seq() != lastSeq || !at.integrity().lineHash().equals(lastHash)) {
                reset(); // the line indexed last was cut off and the chain grew again from before it
                it = read.apply(1);
            }
        }
        while (it.hasNext()) {
            add(it.next());
        }
    }

    private void reset() {
        files.clear();
        lastSeq = 0;
        lastHash = null;
    }

    private void add(Event e) {
        lastSeq = e.seq();
        lastHash = e.integrity().lineHash();
        BranchMergePayload m = EventPayloads.branchMerge(e).orElse(null);
        if (m != null) {
            m.changed().forEach((path, keys) -> {
                Map<String, Touches> sections = files.computeIfAbsent(path, k -> new LinkedHashMap<>());
                keys.forEach(
                        k -> sections.computeIfAbsent(k, x -> new Touches()).add(e));
            });
            return;
        }
        if (e.filePath() == null) {
            return;
        }
        Map<String, Touches> sections = files.computeIfAbsent(e.filePath(), k -> new LinkedHashMap<>());
        if (e.sectionAnchor() != null) {
            sections.computeIfAbsent(e.sectionAnchor(), k -> new Touches()).add(e);
        }
        if (EventPayloads.humanEdit(e).orElse(null) instanceof HumanEditPayload.WholeFile w) {
            for (String k : w.changed()) {
                if (!k.equals(e.sectionAnchor())) {
                    sections.computeIfAbsent(k, x -> new Touches()).add(e);
                }
            }
        }
    }
}
