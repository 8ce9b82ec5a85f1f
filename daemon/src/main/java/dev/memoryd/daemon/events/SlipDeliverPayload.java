package dev.memoryd.daemon.events;

import java.util.List;

/** The payload of {@code slip_deliver}: the agent the messages went to and the ids of their {@code slip_send} events. */
public record SlipDeliverPayload(long agent, List<String> eventIds) {
    public static final String OP = "slip_deliver";

    public SlipDeliverPayload {
        eventIds = List.copyOf(eventIds);
    }
}
