package dev.memoryd.ledger;

import java.time.Instant;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An event id: a ULID in canonical form, 26 upper-case Crockford base32 characters
 * (no I, L, O, U), the first one 0–7 so the 128-bit value fits. Immutable value.
 */
public record EventId(String value) {
    static final String ULID_REGEX = "[0-7][0-9A-HJKMNP-TV-Z]{25}";
    private static final Pattern ULID = Pattern.compile(ULID_REGEX);

    public EventId {
        Objects.requireNonNull(value, "event id");
        if (!ULID.matcher(value).matches()) {
            throw new IllegalArgumentException(
                    "not a ULID (26 upper-case Crockford base32 chars, first 0-7): \"" + value + "\"");
        }
    }

    /** Parses and validates {@code s}. */
    public static EventId of(String s) {
        return new EventId(s);
    }

    /** The millisecond timestamp encoded in the first 10 characters. */
    public Instant timestamp() {
        long ms = 0;
        for (int i = 0; i < 10; i++) {
            ms = (ms << 5) | "0123456789ABCDEFGHJKMNPQRSTVWXYZ".indexOf(value.charAt(i));
        }
        return Instant.ofEpochMilli(ms);
    }

    @Override
    public String toString() {
        return value;
    }
}
