package dev.memoryd.daemon.write;

import dev.memoryd.ledger.Event;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;

/**
 * State that is a fold over ledger events (a relay's queues, stored conversations): loaded from
 * the chain at start, then fed each published batch by the writer. Each event is folded once,
 * in ledger order, even though recovery announces again a tail that the load already saw.
 * Subclasses fold under this object's monitor.
 */
public abstract class LedgerFold implements Consumer<List<Event>> {
    private long foldedSeq;

    /** Folds the chain's history; call before the writer starts. */
    public final synchronized void load(Iterator<Event> chain) {
        chain.forEachRemaining(this::foldOnce);
        folded();
    }

    @Override
    public final synchronized void accept(List<Event> events) {
        events.forEach(this::foldOnce);
        folded();
    }

    private void foldOnce(Event e) {
        if (e.seq() > foldedSeq) {
            foldedSeq = e.seq();
            fold(e);
        }
    }

    /** Applies one event to the state. Called with this object's monitor held. */
    protected abstract void fold(Event e);

    /** Called after a load or a batch; with the monitor held. */
    protected void folded() {}
}
