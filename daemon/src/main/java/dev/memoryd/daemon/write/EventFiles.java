package dev.memoryd.daemon.write;

import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.ledger.Event;
import java.util.LinkedHashSet;
import java.util.Set;

/** Which files a ledger event changed, for the folds that keep derived state (search, chunk graph). Stateless. */
public final class EventFiles {
    private EventFiles() {}

    /**
     * The files an event changed: its {@code file_path}, and for an event that carries whole texts
     * ({@code payload.files}: a merge, a sync's merge) each of those.
     */
    public static Set<String> touched(Event e) {
        Set<String> out = new LinkedHashSet<>();
        if (e.filePath() != null) {
            out.add(e.filePath());
        }
        EventPayloads.branchMerge(e).ifPresent(m -> out.addAll(m.files().keySet()));
        return out;
    }
}
