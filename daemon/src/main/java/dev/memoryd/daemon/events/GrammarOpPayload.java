package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * The payload of an event that applied a grammar op (its event op is the grammar op's name, or an
 * accepted proposal's): the {@code op} as recorded. It stays JSON because ops are as many shapes
 * as the grammar has, and replay parses it with the grammar's own codec after dropping its
 * compare-and-swap hash. {@code crlf}: the payload's {@code line_ends} is {@code "crlf"}, so the
 * op's file was written with CRLF line ends because its text had them (lines recorded before
 * memoryd kept them have no such field, and replay writes them with LF as then).
 */
public record GrammarOpPayload(ObjectNode op, boolean crlf) {
    /** The payload field that says how memoryd ended the lines it wrote to the op's file. */
    public static final String LINE_ENDS = "line_ends";

    /** {@link #LINE_ENDS}'s value for a file written with CRLF line ends. */
    public static final String CRLF = "crlf";

    public GrammarOpPayload {
        Objects.requireNonNull(op, "op");
    }

    /** {@code op.section}: the section the op names, or null when it names none as text. */
    public String section() {
        return op.path("section").isTextual() ? op.get("section").asText() : null;
    }
}
