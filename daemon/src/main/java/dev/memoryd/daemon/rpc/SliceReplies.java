package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.slices.SliceListing;
import java.util.List;

/**
 * The {@code slices} group's listings as the wire's JSON, for the socket and the CLI's
 * {@code --json}: keys and their order are the protocol's, an absent value is {@code null}.
 */
public final class SliceReplies {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private SliceReplies() {}

    /** {@code {items: [{id, path, title, kind, body_type, updated?, staleness?, label?, age?, tag?, derived_from?}]}}. */
    public static ObjectNode list(List<SliceListing> items) {
        ObjectNode r = F.objectNode();
        ArrayNode out = r.putArray("items");
        items.forEach(i -> out.add(item(i)));
        return r;
    }

    private static ObjectNode item(SliceListing s) {
        ObjectNode o = F.objectNode();
        o.put("id", s.id());
        o.put("path", s.path());
        o.put("title", s.title());
        o.put("kind", s.kind());
        o.put("body_type", s.bodyType());
        s.freshness().ifPresent(f -> {
            o.put("updated", f.updated().toString());
            o.put("staleness", f.staleness());
            o.put("label", f.label().name());
            o.put("age", f.age());
            o.put("tag", f.tag());
        });
        s.derivedFrom().ifPresent(d -> {
            ObjectNode dn = o.putObject("derived_from");
            dn.put("id", d.id());
            dn.put("status", d.status().name());
        });
        return o;
    }
}
