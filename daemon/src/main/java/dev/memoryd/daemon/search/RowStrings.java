package dev.memoryd.daemon.search;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;

/**
 * The words the search index takes from a conversation slice's body: every string value of every
 * line that parses as JSON ({@link dev.memoryd.grammar.slices.JsonlBody#lines}: non-blank lines,
 * {@code \r\n} accepted, duplicate keys refused, anything after a line's first value ignored), one
 * per line of output, in document order. The same text as walking each line's parsed tree, read
 * with a streaming parser instead: a conversation file holds thousands of lines and building
 * their trees was a fifth of the index's work on them. Stateless.
 */
final class RowStrings {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private RowStrings() {}

    /** Appends the string values of {@code body}'s JSON lines to {@code out}, each followed by a newline. */
    static void append(String body, StringBuilder out) {
        int start = 0;
        int len = body.length();
        while (start <= len) {
            int nl = body.indexOf('\n', start);
            int end = nl < 0 ? len : nl;
            int stop = end > start && body.charAt(end - 1) == '\r' ? end - 1 : end;
            String line = body.substring(start, stop);
            if (!line.isBlank()) {
                int mark = out.length();
                try {
                    strings(line, out);
                } catch (IOException e) {
                    out.setLength(mark); // not JSON: the line adds nothing, as its tree would be absent
                }
            }
            if (nl < 0) {
                break;
            }
            start = nl + 1;
        }
    }

    /** The string values of the line's first JSON value. */
    private static void strings(String line, StringBuilder out) throws IOException {
        try (JsonParser p = FACTORY.createParser(line)) {
            int depth = 0;
            do {
                JsonToken t = p.nextToken();
                if (t == null) {
                    throw new IOException("the line ends inside its value");
                }
                switch (t) {
                    case START_OBJECT, START_ARRAY -> depth++;
                    case END_OBJECT, END_ARRAY -> depth--;
                    case VALUE_STRING -> out.append(p.getText()).append('\n');
                    default -> {}
                }
            } while (depth > 0);
        }
    }
}
