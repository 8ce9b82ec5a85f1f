package dev.memoryd.grammar.slices;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The field-level checks {@link SliceValidator} is made of: each looks at one field and adds
 * its problems, with the field's path and a stable rule id, to the list given.
 *
 * <p>Stateless; safe from any thread.
 */
final class FieldChecks {
    private FieldChecks() {}

    /** Whether {@code n} is missing or null. */
    static boolean absent(JsonNode n) {
        return n == null || n.isNull() || n.isMissingNode();
    }

    /** Checks a required scalar; true when present, scalar and not blank. */
    static boolean requiredText(JsonNode parent, String key, String path, List<SliceProblem> out) {
        JsonNode n = parent.get(key);
        if (absent(n) || (n.isValueNode() && n.asText().isBlank())) {
            out.add(new SliceProblem(path, "required", path + " is required and must not be empty"));
            return false;
        }
        if (!n.isValueNode()) {
            out.add(new SliceProblem(path, "type", path + " must be a string"));
            return false;
        }
        return true;
    }

    /** Checks an optional scalar; true when present and scalar. */
    static boolean optionalText(JsonNode parent, String key, String path, List<SliceProblem> out) {
        JsonNode n = parent.get(key);
        if (absent(n)) {
            return false;
        }
        if (!n.isValueNode()) {
            out.add(new SliceProblem(path, "type", path + " must be a string"));
            return false;
        }
        return true;
    }

    /** A {@code format} problem when {@code value} does not match {@code p}. */
    static void format(String value, Pattern p, String path, String what, List<SliceProblem> out) {
        if (!p.matcher(value).matches()) {
            out.add(new SliceProblem(path, "format", path + " '" + value + "' must be " + what));
        }
    }

    /** An {@code enum} problem when {@code n} is present and not one of {@code allowed}. */
    static void enumField(JsonNode n, Set<String> allowed, String path, List<SliceProblem> out) {
        if (absent(n)) {
            return;
        }
        if (!n.isTextual() || !allowed.contains(n.asText())) {
            out.add(new SliceProblem(path, "enum", path + " must be one of " + sorted(allowed) + ", not " + n));
        }
    }

    /** A {@code type} problem when {@code n} is present and not a boolean. */
    static void bool(JsonNode n, String path, List<SliceProblem> out) {
        if (!absent(n) && !n.isBoolean()) {
            out.add(new SliceProblem(path, "type", path + " must be true or false, not " + n));
        }
    }

    /** A {@code type} problem when {@code n} is present and not a list of strings. */
    static void stringList(JsonNode n, String path, List<SliceProblem> out) {
        if (absent(n)) {
            return;
        }
        if (!n.isArray()) {
            out.add(new SliceProblem(path, "type", path + " must be a list of strings"));
            return;
        }
        for (int i = 0; i < n.size(); i++) {
            if (!n.get(i).isValueNode() || n.get(i).isNull()) {
                out.add(new SliceProblem(path + "[" + i + "]", "type", path + "[" + i + "] must be a string"));
            }
        }
    }

    /** An {@code unknown-field} problem for each key of {@code obj} not in {@code known}. */
    static void unknown(JsonNode obj, Set<String> known, String path, List<SliceProblem> out) {
        for (Iterator<String> it = obj.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!known.contains(f)) {
                out.add(new SliceProblem(
                        path + "." + f,
                        "unknown-field",
                        path + "." + f + " is not a field of Slices v1 (known: " + sorted(known) + ")"));
            }
        }
    }

    /** The names in order, for messages. */
    static List<String> sorted(Set<String> s) {
        return s.stream().sorted().toList();
    }
}
