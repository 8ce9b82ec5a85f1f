package dev.memoryd.daemon.refs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.lib.ObjectId;

/**
 * A pointer slice's generated fields and its file text. The text is a function of the slice alone
 * (see {@link #render}), so the live write and the replay of its event produce the same bytes.
 */
final class PointerText {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final List<String> TOP_ORDER = List.of(
            "v", "id", "kind", "title", "summary", "body", "payload", "contract", "links", "derived_from", "meta");
    private static final YAMLMapper YAML = dev.memoryd.grammar.frontmatter.Frontmatter.WRITER;

    private PointerText() {}

    /** Sets title, summary, body and payload of a pointer pinned at (commit, blob). */
    static void describe(
            ObjectNode slice, String repoKey, String file, ObjectId commit, ObjectId blob, GitHistory.Digest d) {
        slice.put("title", "Reference: " + file);
        slice.put(
                "summary",
                file + " in " + Ref.display(repoKey) + ", pinned at commit "
                        + commit.name().substring(0, 12) + " (blob "
                        + blob.name().substring(0, 12)
                        + "). Reconciled against Git history with 'memoryd refs reconcile'.");
        slice.putObject("body").put("type", "none");
        ObjectNode payload = slice.putObject("payload");
        payload.put("uri", uri(repoKey, file));
        payload.put("hash", d.sha256());
        payload.put("size", d.size());
    }

    static String uri(String repoKey, String file) {
        return RefStore.MEMORY_REPO.equals(repoKey)
                ? "./" + encode(file)
                : "git+file://" + encode(repoKey) + "#" + encode(file);
    }

    /** Percent-encodes what a URI path or fragment cannot hold as is. */
    private static String encode(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c > 0x20 && c < 0x7f && "%#?[]\"<>\\^`{|}".indexOf(c) < 0) {
                sb.append((char) c);
            } else {
                sb.append('%').append(String.format("%02X", c));
            }
        }
        return sb.toString();
    }

    /**
     * The pointer file's text. Keys are put in one fixed order (the spec's at the top, sorted below)
     * because the ledger stores payloads in JCS form, with sorted keys: replay must render the same
     * bytes from them as the live write did.
     */
    static String render(ObjectNode slice) {
        ObjectNode ordered = F.objectNode();
        for (String k : TOP_ORDER) {
            if (slice.has(k)) {
                ordered.set(k, sorted(slice.get(k)));
            }
        }
        Map<String, JsonNode> rest = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = slice.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!TOP_ORDER.contains(e.getKey())) {
                rest.put(e.getKey(), e.getValue());
            }
        }
        rest.forEach((k, v) -> ordered.set(k, sorted(v)));
        ObjectNode doc = F.objectNode();
        doc.set("slice", ordered);
        try {
            return "---\n" + YAML.writeValueAsString(doc) + "---\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode sorted(JsonNode n) {
        if (n.isObject()) {
            ObjectNode o = F.objectNode();
            Map<String, JsonNode> m = new TreeMap<>();
            n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue()));
            m.forEach((k, v) -> o.set(k, sorted(v)));
            return o;
        }
        if (n.isArray()) {
            ArrayNode a = F.arrayNode();
            n.forEach(x -> a.add(sorted(x)));
            return a;
        }
        return n;
    }
}
