package dev.memoryd.daemon.events;

import dev.memoryd.grammar.slip.SlipMessage;
import java.util.Objects;

/** The payload of {@code slip_send}: the message, as SLIP's JSON form reads. */
public record SlipSendPayload(SlipMessage message) {
    public static final String OP = "slip_send";

    public SlipSendPayload {
        Objects.requireNonNull(message, "message");
    }
}
