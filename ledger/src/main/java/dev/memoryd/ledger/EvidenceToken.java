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

    /**
     * The token for an event whose time is {@code ts}, an ISO-8601 instant as {@link Instant#parse}
     * reads it. The form events carry ({@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z}) is read by hand: the
     * formatters' parse and print took a twentieth of the writer's time, once per reply.
     *
     * @throws java.time.format.DateTimeParseException when {@code ts} is not an instant
     */
    public static EvidenceToken ofTimestamp(String ts, EventId id) {
        if (commonShape(ts)) {
            StringBuilder b = new StringBuilder(46).append("ev:");
            b.append(ts, 0, 4).append(ts, 5, 7).append(ts, 8, 10).append('T');
            b.append(ts, 11, 13).append(ts, 14, 16).append(ts, 17, 19).append("Z-");
            return new EvidenceToken(b.append(id.value()).toString());
        }
        return of(Instant.parse(ts), id);
    }

    /** Whether {@code s} is {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z} and names a real date and time. */
    private static boolean commonShape(String s) {
        int n = s.length();
        if (n < 20 || n == 21 || n > 30 || s.charAt(n - 1) != 'Z' || (n > 20 && s.charAt(19) != '.')) {
            return false;
        }
        for (int i = 0; i < n - 1; i++) {
            char c = s.charAt(i);
            boolean sep = i == 4 || i == 7 || i == 10 || i == 13 || i == 16 || i == 19;
            char want = i == 4 || i == 7 ? '-' : i == 10 ? 'T' : i == 19 ? '.' : ':';
            if (sep ? c != want : (c < '0' || c > '9')) {
                return false;
            }
        }
        try {
            java.time.LocalDateTime.of(
                    num(s, 0, 4), num(s, 5, 7), num(s, 8, 10), num(s, 11, 13), num(s, 14, 16), num(s, 17, 19));
            return true;
        } catch (java.time.DateTimeException e) {
            return false; // left to the parser, which says what is wrong
        }
    }

    private static int num(String s, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            v = v * 10 + (s.charAt(i) - '0');
        }
        return v;
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
