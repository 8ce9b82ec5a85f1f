package dev.memoryd.daemon.locks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.grammar.frontmatter.Frontmatter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A memory file's section locks, {@code slice.meta.locked_sections} in its frontmatter (file
 * grammar §13), read and rewritten as text: only that one key's lines change, so the human's
 * own layout of the rest of the frontmatter stays as it was. Stateless.
 */
final class LockedSections {
    private static final Pattern SLICE = Pattern.compile("slice:[ \\t]*");
    private static final Pattern META = Pattern.compile("([ \\t]+)meta:[ \\t]*");
    private static final Pattern KEY = Pattern.compile("locked_sections[ \\t]*:.*");
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_-]*");

    private LockedSections() {}

    /** The entries of {@code slice.meta.locked_sections} (a single string counts as one). */
    static List<String> of(JsonNode frontmatter) {
        JsonNode l = frontmatter == null
                ? null
                : frontmatter.path("slice").path("meta").path("locked_sections");
        List<String> out = new ArrayList<>();
        if (l != null && l.isTextual()) {
            out.add(l.asText());
        } else if (l != null && l.isArray()) {
            l.forEach(x -> out.add(x.asText()));
        }
        return out;
    }

    /**
     * {@code text} with {@code slice.meta.locked_sections} set to {@code locked} (the key removed when
     * it is empty), everything else as it was.
     *
     * @throws IllegalArgumentException when the frontmatter has no {@code slice.meta} block this edit
     *     can find, or the edit would change anything but that key (checked by parsing the result)
     */
    static String rewrite(String text, List<String> locked) {
        Frontmatter before = Frontmatter.parse(text);
        if (before.tree() == null || !before.tree().path("slice").path("meta").isObject()) {
            throw new IllegalArgumentException("its frontmatter has no slice.meta mapping"
                    + (before.error() == null ? "" : " (" + before.error() + ")"));
        }
        List<String> lines = lines(text.substring(0, before.end()));
        int close = lines.size() - 1; // the closing fence
        int slice = find(lines, 1, close, SLICE, 0);
        int meta = slice < 0 ? -1 : metaLine(lines, slice + 1, close);
        if (meta < 0) {
            throw new IllegalArgumentException("its frontmatter's slice.meta is not a block this edit can find");
        }
        int metaIndent = indent(lines.get(meta));
        int end = meta + 1;
        int childIndent = -1;
        while (end < close && (lines.get(end).isBlank() || indent(lines.get(end)) > metaIndent)) {
            if (childIndent < 0 && !lines.get(end).isBlank()) {
                childIndent = indent(lines.get(end));
            }
            end++;
        }
        String nl = lines.get(0).endsWith("\r\n") ? "\r\n" : "\n";
        String line =
                " ".repeat(childIndent < 0 ? metaIndent + 2 : childIndent) + "locked_sections: " + flow(locked) + nl;
        int key = childIndent < 0 ? -1 : find(lines, meta + 1, end, KEY, childIndent);
        if (key >= 0) {
            int to = key + 1;
            while (to < end
                    && !lines.get(to).isBlank()
                    && (indent(lines.get(to)) > childIndent
                            || lines.get(to).stripLeading().startsWith("- ") && indent(lines.get(to)) == childIndent)) {
                to++;
            }
            lines.subList(key, to).clear();
            if (!locked.isEmpty()) {
                lines.add(key, line);
            }
        } else if (!locked.isEmpty()) {
            int at = end;
            while (at > meta + 1 && lines.get(at - 1).isBlank()) {
                at--;
            }
            lines.add(at, line);
        }
        String out = String.join("", lines) + text.substring(before.end());
        check(before.tree(), Frontmatter.parse(out).tree(), locked);
        return out;
    }

    private static void check(JsonNode before, JsonNode after, List<String> locked) {
        ObjectNode want = before.deepCopy();
        ObjectNode meta = (ObjectNode) want.path("slice").path("meta");
        if (locked.isEmpty()) {
            meta.remove("locked_sections");
        } else {
            meta.putArray("locked_sections")
                    .addAll(locked.stream()
                            .map(JsonNodeFactory.instance::textNode)
                            .toList());
        }
        if (!want.equals(after)) {
            throw new IllegalArgumentException("its frontmatter is laid out in a way this edit cannot change safely");
        }
    }

    private static String flow(List<String> locked) {
        List<String> items = new ArrayList<>();
        for (String s : locked) {
            items.add(
                    PLAIN.matcher(s).matches()
                            ? s
                            : "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
        }
        return "[" + String.join(", ", items) + "]";
    }

    private static int metaLine(List<String> lines, int from, int to) {
        for (int i = from; i < to; i++) {
            String l = lines.get(i);
            if (!l.isBlank() && indent(l) == 0) {
                return -1; // the next top-level key: slice has no meta block
            }
            Matcher m = META.matcher(strip(l));
            if (m.matches()) {
                return i;
            }
        }
        return -1;
    }

    private static int find(List<String> lines, int from, int to, Pattern p, int indent) {
        for (int i = from; i < to; i++) {
            String l = strip(lines.get(i));
            if (indent(l) == indent && p.matcher(l.substring(indent)).matches()) {
                return i;
            }
        }
        return -1;
    }

    private static String strip(String line) {
        return line.endsWith("\r\n")
                ? line.substring(0, line.length() - 2)
                : line.endsWith("\n") ? line.substring(0, line.length() - 1) : line;
    }

    private static int indent(String l) {
        int i = 0;
        while (i < l.length() && (l.charAt(i) == ' ' || l.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static List<String> lines(String s) {
        List<String> out = new ArrayList<>();
        int pos = 0;
        while (pos < s.length()) {
            int e = s.indexOf('\n', pos);
            int end = e < 0 ? s.length() : e + 1;
            out.add(s.substring(pos, end));
            pos = end;
        }
        return out;
    }
}
