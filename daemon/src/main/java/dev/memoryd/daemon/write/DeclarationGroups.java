package dev.memoryd.daemon.write;

import dev.memoryd.daemon.events.Decl;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.ledger.Event;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Ledger events grouped into the declarations that wrote them: consecutive events sharing
 * {@code payload.decl.id} (an event without one is a group of its own). Recovery, replay and
 * {@code replay --onto-latest} redo a declaration as a whole. Not thread-safe; lazy.
 */
final class DeclarationGroups implements Iterator<List<Event>> {
    private final Iterator<Event> events;
    private Event pending;

    DeclarationGroups(Iterator<Event> events) {
        this.events = events;
    }

    @Override
    public boolean hasNext() {
        return pending != null || events.hasNext();
    }

    @Override
    public List<Event> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        List<Event> group = new ArrayList<>();
        Event first = pending != null ? pending : events.next();
        pending = null;
        group.add(first);
        String decl = declId(first);
        while (decl != null && events.hasNext()) {
            Event e = events.next();
            if (!decl.equals(declId(e))) {
                pending = e;
                break;
            }
            group.add(e);
        }
        return group;
    }

    private static String declId(Event e) {
        return EventPayloads.decl(e).map(Decl::id).orElse(null);
    }
}
