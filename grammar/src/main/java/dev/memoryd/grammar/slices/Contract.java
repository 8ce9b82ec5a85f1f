package dev.memoryd.grammar.slices;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/**
 * The enforceable part of a slice's {@code contract}: {@code write} and {@code overflow}.
 * {@link #check} decides whether a change may be written and returns a typed
 * {@link WriteCheck}, never an exception. Pure; immutable.
 *
 * <p>Write modes (what {@code contract.write} allows):
 * <table>
 * <caption>allowed changes</caption>
 * <tr><th>contract.write</th><th>APPEND</th><th>SUPERSEDE</th><th>REPLACE</th></tr>
 * <tr><td>(absent)</td><td>yes</td><td>yes</td><td>yes</td></tr>
 * <tr><td>append</td><td>yes</td><td>no</td><td>no</td></tr>
 * <tr><td>supersede</td><td>yes</td><td>yes</td><td>no</td></tr>
 * <tr><td>replace</td><td>yes</td><td>yes</td><td>yes</td></tr>
 * <tr><td>error</td><td>no</td><td>no</td><td>no</td></tr>
 * </table>
 *
 * <p>Overflow: a change whose resulting body exceeds {@code limitBytes} (UTF-8) is not
 * written as is. With {@code overflow: error} (and when {@code overflow} is absent) it is
 * {@link WriteCheck.Refused}; with {@code split}, {@code summarize} or {@code archive} it is
 * {@link WriteCheck.Overflow}, telling the caller what must happen first (split: start a
 * new slice and write there; summarize: compress old content; archive: move old content
 * out). The write mode is checked before the size. Values the spec does not define are
 * treated as absent; {@link SliceValidator} reports them.
 *
 * @param write    {@code contract.write}, if set
 * @param overflow {@code contract.overflow}, if set
 */
public record Contract(Optional<Write> write, Optional<OverflowPolicy> overflow) {

    /** {@code contract.write}. */
    public enum Write {
        APPEND,
        REPLACE,
        SUPERSEDE,
        ERROR
    }

    /** {@code contract.overflow}. */
    public enum OverflowPolicy {
        SPLIT,
        SUMMARIZE,
        ARCHIVE,
        ERROR
    }

    /** The kind of change a writer attempts. */
    public enum Change {
        /** Add new entries; nothing existing changes. */
        APPEND,
        /** Append entries that mark earlier ones superseded. */
        SUPERSEDE,
        /** Overwrite the content. */
        REPLACE
    }

    /** The outcome of {@link #check}. */
    public sealed interface WriteCheck permits WriteCheck.Allowed, WriteCheck.Refused, WriteCheck.Overflow {

        /** The change may be written. */
        record Allowed() implements WriteCheck {}

        /**
         * The change must not be written.
         *
         * @param rule    {@code write-error} (contract.write is error), {@code write-mode}
         *                (the mode does not allow this change) or {@code overflow} (too large)
         * @param message human-readable explanation
         */
        record Refused(String rule, String message) implements WriteCheck {}

        /**
         * The change would exceed the limit and the contract says what to do instead.
         *
         * @param policy     SPLIT, SUMMARIZE or ARCHIVE
         * @param sizeBytes  the body's size after the change
         * @param limitBytes the limit
         * @param message    what the caller must do
         */
        record Overflow(OverflowPolicy policy, long sizeBytes, long limitBytes, String message) implements WriteCheck {}
    }

    /** A contract with neither field set: every change allowed, oversize refused. */
    public static Contract none() {
        return new Contract(Optional.empty(), Optional.empty());
    }

    /** Reads {@code contract.write} and {@code contract.overflow} from a {@code slice:} mapping. */
    public static Contract of(JsonNode slice) {
        JsonNode c = slice == null ? null : slice.get("contract");
        if (c == null || !c.isObject()) {
            return none();
        }
        return new Contract(parse(Write.class, c.get("write")), parse(OverflowPolicy.class, c.get("overflow")));
    }

    private static <E extends Enum<E>> Optional<E> parse(Class<E> type, JsonNode n) {
        if (n == null || !n.isTextual()) {
            return Optional.empty();
        }
        for (E e : type.getEnumConstants()) {
            if (e.name().toLowerCase(Locale.ROOT).equals(n.asText())) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /** Checks a change whose resulting body is {@code newBody} (size in UTF-8 bytes). */
    public WriteCheck check(Change change, String newBody, long limitBytes) {
        return check(change, newBody.getBytes(StandardCharsets.UTF_8).length, limitBytes);
    }

    /** Checks a change whose resulting body has {@code newSizeBytes}. */
    public WriteCheck check(Change change, long newSizeBytes, long limitBytes) {
        if (write.isPresent()) {
            Write w = write.get();
            boolean ok = switch (w) {
                case ERROR -> false;
                case APPEND -> change == Change.APPEND;
                case SUPERSEDE -> change != Change.REPLACE;
                case REPLACE -> true;
            };
            if (w == Write.ERROR) {
                return new WriteCheck.Refused("write-error", "contract.write is error: this slice is immutable");
            }
            if (!ok) {
                return new WriteCheck.Refused(
                        "write-mode", "contract.write is " + name(w) + ": a " + name(change) + " is not allowed");
            }
        }
        if (newSizeBytes <= limitBytes) {
            return new WriteCheck.Allowed();
        }
        OverflowPolicy p = overflow.orElse(OverflowPolicy.ERROR);
        String size = newSizeBytes + " bytes exceeds the limit of " + limitBytes;
        return switch (p) {
            case ERROR ->
                new WriteCheck.Refused(
                        "overflow",
                        size + " and contract.overflow is " + (overflow.isPresent() ? "error" : "not set")
                                + "; nothing was written");
            case SPLIT ->
                new WriteCheck.Overflow(p, newSizeBytes, limitBytes, size + "; start a new slice and write there");
            case SUMMARIZE ->
                new WriteCheck.Overflow(p, newSizeBytes, limitBytes, size + "; summarize old content first");
            case ARCHIVE -> new WriteCheck.Overflow(p, newSizeBytes, limitBytes, size + "; archive old content first");
        };
    }

    private static String name(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
