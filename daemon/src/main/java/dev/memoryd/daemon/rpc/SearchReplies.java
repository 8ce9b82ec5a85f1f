package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.search.SearchHit;
import java.util.List;

/** {@code search}'s hits as the wire's JSON: keys and their order are the protocol's, an absent value is {@code null}. */
final class SearchReplies {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private SearchReplies() {}

    /**
     * {@code {hits: [{path, section, anchor, slice_id, chunk, title, source?, branch?, score, snippet,
     * label?, age?, tag?, peer?}]}}: a peer's hit names its {@code peer} last and no branch.
     */
    static ObjectNode hits(List<SearchHit> hits) {
        ObjectNode r = F.objectNode();
        ArrayNode out = r.putArray("hits");
        hits.forEach(h -> out.add(hit(h)));
        return r;
    }

    private static ObjectNode hit(SearchHit h) {
        ObjectNode o = F.objectNode();
        o.put("path", h.path());
        o.put("section", h.section());
        o.put("anchor", h.anchor());
        o.put("slice_id", h.sliceId());
        o.put("chunk", h.chunk());
        o.put("title", h.title());
        h.source().ifPresent(s -> o.put("source", s));
        if (h.branch() != null) {
            o.put("branch", h.branch());
        }
        o.put("score", h.score());
        o.put("snippet", h.snippet());
        h.freshness().ifPresent(t -> {
            o.put("label", t.label().name());
            o.put("age", t.age());
            o.put("tag", t.tag());
        });
        if (h.peer() != null) {
            o.put("peer", h.peer());
        }
        return o;
    }
}
