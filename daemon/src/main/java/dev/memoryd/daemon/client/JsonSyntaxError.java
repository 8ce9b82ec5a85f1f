package dev.memoryd.daemon.client;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.regex.Pattern;

/**
 * Where a JSON text is malformed and what the reader expected there, for a person: Jackson's own
 * message without its "[Source: REDACTED ...]" location blocks, which become "line L, column C".
 * The one wording of malformed JSON, for the socket's replies and the command line's errors alike.
 *
 * @param line 1-based; 0 when the reader gave no location
 * @param column 1-based; 0 when the reader gave no location
 * @param what what the reader found or expected, in one line
 */
public record JsonSyntaxError(int line, int column, String what) {
    /** Jackson's location text inside a message, e.g. where an unclosed object started. */
    private static final Pattern SOURCE = Pattern.compile("\\[Source: [^\\]]*?; line: (\\d+)(?:, column: (\\d+))?\\]");

    public JsonSyntaxError {
        if (line < 0 || column < 0 || what == null || what.isBlank() || what.contains("\n")) {
            throw new IllegalArgumentException("a syntax error needs a location >= 0 and one line of text");
        }
    }

    /** The error {@code e} describes. */
    public static JsonSyntaxError of(JsonProcessingException e) {
        String what = SOURCE.matcher(String.valueOf(e.getOriginalMessage()))
                .replaceAll(m -> "line " + m.group(1) + (m.group(2) == null ? "" : ", column " + m.group(2)))
                .replaceAll("\\s*\\R\\s*", " ")
                .trim();
        JsonLocation at = e.getLocation();
        boolean located = at != null && at.getLineNr() > 0;
        return new JsonSyntaxError(
                located ? at.getLineNr() : 0,
                located ? Math.max(at.getColumnNr(), 0) : 0,
                what.isEmpty() ? "malformed JSON" : what);
    }

    /** The same location with other words (e.g. advice for a case the reader's words do not explain). */
    public JsonSyntaxError saying(String words) {
        return new JsonSyntaxError(line, column, words);
    }

    /** "at line L, column C: what", or ": what" when there is no location. */
    public String atWhere() {
        return (line > 0 ? " at line " + line + ", column " + column : "") + ": " + what;
    }
}
