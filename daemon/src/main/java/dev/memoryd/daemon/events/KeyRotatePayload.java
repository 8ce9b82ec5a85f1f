package dev.memoryd.daemon.events;

/** The payload of {@code key_rotate}: the ledger key version retired and the one signing from this line on. */
public record KeyRotatePayload(int retired, int current) {
    public static final String OP = "key_rotate";
}
