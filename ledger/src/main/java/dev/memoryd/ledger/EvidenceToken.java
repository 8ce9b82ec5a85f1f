package dev.memoryd.ledger;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An evidence token {@code ev:YYYYMMDDThhmmssZ-<ULID>}: the second-resolution UTC time of an
 * event and its {@link EventId}. Immutable value; validated by regex on construction.
 */
public record EvidenceToken(String value) {
    private static final Pattern TOKEN = Pattern.compile("ev:(\\d{8}T\\d{6}Z)-(" + EventId.ULID_REGEX + ")");
    private static final DateTimeFormatter TS =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    public EvidenceToken {
        Objects.requireNonNull(value, "evidence token");
        if (!TOKEN.matcher(value).matches()) {
            throw new IllegalArgumentException("not an evidence token (ev:YYYYMMDDThhmmssZ-<ULID>): \"" + value + "\"");
        }
    }

    /** Parses and validates {@code s}. */
    public static EvidenceToken parse(String s) {
        return new EvidenceToken(s);
    }

    /** The token for an event at {@code ts} (truncated to the second, UTC) with id {@code id}. */
    public static EvidenceToken of(Instant ts, EventId id) {
        return new EvidenceToken("ev:" + TS.format(ts) + "-" + id.value());
    }

    /** The event id the token points to. */
    public EventId eventId() {
        Matcher m = TOKEN.matcher(value);
        m.matches(); // validated in the constructor
        return new EventId(m.group(2));
    }

    @Override
    public String toString() {
        return value;
    }
}
