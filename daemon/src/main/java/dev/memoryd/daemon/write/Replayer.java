package dev.memoryd.daemon.write;

import dev.memoryd.ledger.Event;
import java.util.List;

/** Rebuilds an extension's mutation from its events, for recovery and replay. Keyed by event op ({@link Replayers}). */
@FunctionalInterface
public interface Replayer {
    Mutation fromEvents(List<Event> events);
}
