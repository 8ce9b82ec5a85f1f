package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.ForkPayload;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * Replays one branch's chain from empty: every file the ledger writes, rebuilt from the ledger
 * alone, declaration by declaration, through {@link Replayers}. A chain that starts with a fork
 * replays its parent's lineage first. Reads the chain on a second thread while the caller's
 * thread applies; call it on the chain's writer thread, which is the only one appending.
 */
public final class LedgerReplay {
    private final Chain chain;
    private final Replayers replayers;
    private volatile Function<BranchName, Optional<Chain>> chains = b -> Optional.empty();

    LedgerReplay(Chain chain, Replayers replayers) {
        this.chain = chain;
        this.replayers = replayers;
    }

    /** How replay finds other branches' chains (a chain that starts with a fork replays its parent first). */
    void setChains(Function<BranchName, Optional<Chain>> lookup) {
        this.chains = lookup;
    }

    /**
     * The lines replay redoes for chain {@code c} up to its line {@code upTo}: when its first line is
     * a {@code branch_fork} linked to a parent chain, the parent's lineage up to the linked line
     * comes first (the state the branch was forked from), then the chain's own lines. Merges need no
     * such walk: their events carry the merged texts.
     */
    private Iterator<Event> lineage(Chain c, long upTo, int depth) {
        Iterator<Event> own = c.read(1);
        if (!own.hasNext()) {
            return own;
        }
        Event first = own.next();
        List<Iterator<Event>> parts = new ArrayList<>();
        ForkPayload.Link link = EventPayloads.fork(first).map(ForkPayload::link).orElse(null);
        if (link != null && depth < 64) {
            Optional<Chain> parent;
            try {
                parent = chains.apply(new BranchName(link.branch()));
            } catch (IllegalArgumentException e) {
                parent = Optional.empty(); // not a branch name: verify reports the link; replay starts empty
            }
            parent.ifPresent(pc -> parts.add(lineage(pc, link.seq(), depth + 1)));
        }
        if (parts.isEmpty() && upTo == Long.MAX_VALUE) {
            return prepend(first, own); // the common case (no fork): the chain as it streams
        }
        parts.add(prepend(first, own));
        Iterator<Iterator<Event>> each = parts.iterator();
        // Pulled one line at a time, so replay streams a long chain instead of holding it.
        return new Iterator<>() {
            private Iterator<Event> cur = each.next();
            private Event next = advance();

            private Event advance() {
                while (true) {
                    if (cur.hasNext()) {
                        Event e = cur.next();
                        if (cur == parts.get(parts.size() - 1) && e.seq() > upTo) {
                            return null; // past the line a child chain forked from
                        }
                        return e;
                    }
                    if (!each.hasNext()) {
                        return null;
                    }
                    cur = each.next();
                }
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public Event next() {
                if (next == null) {
                    throw new java.util.NoSuchElementException();
                }
                Event e = next;
                next = advance();
                return e;
            }
        };
    }

    private static Iterator<Event> prepend(Event first, Iterator<Event> rest) {
        return new Iterator<>() {
            private boolean firstDone;

            @Override
            public boolean hasNext() {
                return !firstDone || rest.hasNext();
            }

            @Override
            public Event next() {
                if (!firstDone) {
                    firstDone = true;
                    return first;
                }
                return rest.next();
            }
        };
    }

    /** One file replay could not redo: the ledger line, and why; later events of the file are skipped. */
    public record ReplayHalt(RepoPath path, long seq, String reason) {}

    /** The files replaying the whole ledger gives, and the files replay had to halt. */
    public record ReplayState(Map<RepoPath, String> files, List<ReplayHalt> halts, long events, long groups) {}

    /**
     * Rebuilds every file the ledger writes from the ledger alone, starting from nothing. Call on
     * the chain's writer thread ({@link WritePipeline#exclusive}). A group of events that cannot be
     * redone halts its files: later events of those files are skipped and reported, the rest goes on.
     */
    ReplayState fromEmpty(LongConsumer progress) throws IOException {
        Map<RepoPath, String> state = new HashMap<>();
        Map<RepoPath, ReplayHalt> halted = new java.util.LinkedHashMap<>();
        FileSource src = p -> Optional.ofNullable(state.get(p));
        // Reading and parsing ledger lines is a fifth of the work: a second thread does it.
        java.util.concurrent.BlockingQueue<List<Event>> groups = new java.util.concurrent.ArrayBlockingQueue<>(1024);
        List<Event> end = new ArrayList<>(0); // compared by identity
        Throwable[] readFailure = new Throwable[1];
        Thread reader = new Thread(
                () -> {
                    try {
                        DeclarationGroups it = new DeclarationGroups(lineage(chain, Long.MAX_VALUE, 0));
                        while (it.hasNext()) {
                            groups.put(it.next());
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException | Error e) {
                        readFailure[0] = e;
                    } finally {
                        try {
                            groups.put(end); // blocks while the queue is full: the applier is still draining it
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                },
                "memoryd-replay-read");
        reader.setDaemon(true);
        reader.start();
        long events = 0;
        long count = 0;
        try {
            while (true) {
                List<Event> g = groups.take();
                if (g == end) {
                    break;
                }
                replayGroup(g, src, state, halted);
                count++;
                long before = events;
                events += g.size();
                if (events / 10_000 != before / 10_000) {
                    progress.accept(events);
                }
            }
            reader.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reader.interrupt();
            throw new java.io.InterruptedIOException("replay interrupted");
        }
        if (readFailure[0] != null) {
            throw new IOException("reading the ledger for replay failed: " + readFailure[0], readFailure[0]);
        }
        progress.accept(events);
        return new ReplayState(state, new ArrayList<>(halted.values()), events, count);
    }

    private void replayGroup(
            List<Event> g, FileSource src, Map<RepoPath, String> state, Map<RepoPath, ReplayHalt> halted) {
        for (Event e : g) {
            if (e.filePath() != null && halted.containsKey(RepoPath.of(e.filePath()))) {
                return; // a halted file takes no more events; the first halt is what a maintainer needs
            }
        }
        Event first = g.get(0);
        if (EventPayloads.grammarOp(first).isEmpty() && !replayers.replays(first.op())) {
            if (g.stream().allMatch(e -> e.filePath() == null)) {
                return; // touches no file (e.g. a key rotation)
            }
        }
        Mutation.Result r;
        try {
            r = replayers.mutationFor(g).apply(src, Instant.parse(first.ts()));
        } catch (IllegalStateException | IllegalArgumentException e) {
            r = new Mutation.Refused(-1, Failure.of(ErrorReason.CONFLICT, e.getMessage()));
        }
        if (r instanceof Mutation.Refused rej) {
            for (Event e : g) {
                if (e.filePath() != null) {
                    halted.putIfAbsent(
                            RepoPath.of(e.filePath()),
                            new ReplayHalt(
                                    RepoPath.of(e.filePath()),
                                    e.seq(),
                                    rej.failure().reason().wireName() + ": "
                                            + rej.failure().message()));
                }
            }
            return;
        }
        Mutation.Done d = (Mutation.Done) r;
        d.newContents().forEach((p, t) -> {
            if (t == null) {
                state.remove(p);
            } else {
                state.put(p, t);
            }
        });
    }
}
