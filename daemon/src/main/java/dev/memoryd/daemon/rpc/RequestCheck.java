package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.grammar.TextRules;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The checks every request passes before its method sees it, so no method meets text that no
 * file, file name, Git object or ledger line can hold.
 *
 * <ul>
 * <li>Every string, member names included, at any depth, is well-formed UTF-16: a lone surrogate
 *     (sent as a {@code \ud800} escape) has no UTF-8 form.</li>
 * <li>Every number is finite ({@code 1e400} reads as infinity, which JSON cannot write back).</li>
 * <li>The free text a write records beside its ops ({@code params.rationale}, {@code .actor},
 *     {@code .note}, and the provenance {@code .context} and {@code .session_id}) holds no control character other than tab and newline
 *     ({@link TextRules#notMemoryText}); {@code params.actor}, when given, is not blank.</li>
 * </ul>
 *
 * <p>A violation is an {@code invalid_request} whose {@code field} detail is the path of the
 * offending value ({@code params.ops[0].item}); the message never repeats the bad text.
 * Stateless; the walk is iterative, so nesting depth (bounded by the JSON reader) costs no stack.
 */
final class RequestCheck {
    /** Top-level params whose text lands in commit messages and ledger lines as free text. */
    private static final Set<String> FREE_TEXT = Set.of("rationale", "actor", "note", "context", "session_id");

    private RequestCheck() {}

    /** The first problem in {@code request} (a parsed JSON-RPC object), or null if there is none. */
    static Failure check(JsonNode request) {
        Deque<Map.Entry<String, JsonNode>> todo = new ArrayDeque<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = request.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String bad = TextRules.malformed(e.getKey());
            if (bad != null) {
                return failure("", "a member name " + bad);
            }
            todo.push(Map.entry(e.getKey(), e.getValue()));
        }
        while (!todo.isEmpty()) {
            Map.Entry<String, JsonNode> e = todo.pop();
            String path = e.getKey();
            JsonNode n = e.getValue();
            if (n.isTextual()) {
                String bad = TextRules.malformed(n.textValue());
                if (bad != null) {
                    return failure(path, bad);
                }
            } else if (n.isDouble() && !Double.isFinite(n.doubleValue())) {
                return failure(path, "is a number out of range (not a finite double)");
            } else if (n.isArray()) {
                for (int i = n.size() - 1; i >= 0; i--) {
                    todo.push(Map.entry(path + "[" + i + "]", n.get(i)));
                }
            } else if (n.isObject()) {
                for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> c = it.next();
                    String bad = TextRules.malformed(c.getKey());
                    if (bad != null) {
                        return failure(path, "a member name " + bad);
                    }
                    todo.push(Map.entry(path + "." + c.getKey(), c.getValue()));
                }
            }
        }
        JsonNode params = request.get("params");
        if (params != null && params.isObject()) {
            for (String f : FREE_TEXT) {
                JsonNode v = params.get(f);
                String bad = v != null && v.isTextual() ? TextRules.notMemoryText(v.textValue()) : null;
                if (bad != null) {
                    return failure("params." + f, bad);
                }
            }
            JsonNode actor = params.get("actor");
            if (actor != null && actor.isTextual() && actor.textValue().isBlank()) {
                // Blank, the event would name nobody; the default (an agent, or the root's git identity) is had by
                // omitting it.
                return failure("params.actor", "is empty: name who acts, or leave actor out for the default");
            }
        }
        return null;
    }

    private static Failure failure(String path, String problem) {
        String where = path.isEmpty() ? "request" : path;
        return new Failure(ErrorReason.INVALID_REQUEST, where + ": " + problem, Map.of("field", where));
    }
}
