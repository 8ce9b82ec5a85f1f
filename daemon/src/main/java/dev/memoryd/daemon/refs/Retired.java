package dev.memoryd.daemon.refs;

import java.util.Objects;

/** A reference {@link RefStore#retire} marked retired, and the {@code commit} that recorded it. */
public record Retired(String id, String commit) {
    public Retired {
        Objects.requireNonNull(id, "id");
    }
}
