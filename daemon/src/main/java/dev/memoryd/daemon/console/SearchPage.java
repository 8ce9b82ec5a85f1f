package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.DaemonReply;
import java.util.ArrayList;
import java.util.List;

/** Full-text search ({@code search}, Lucene syntax); each hit in a memory file links to its section. */
final class SearchPage {
    /** The most hits asked of the daemon; the page shows them {@link Pager#SIZE} at a time. */
    static final int LIMIT = 1000;

    private final Rpc rpc;
    private final Layout layout;

    SearchPage(Rpc rpc, Layout layout) {
        this.rpc = rpc;
        this.layout = layout;
    }

    Response render(Req r) {
        String q = r.q("q", "");
        StringBuilder b = new StringBuilder(
                        "<form method=\"get\" action=\"/search\"><input type=\"text\" class=\"note\" name=\"q\" value=\"")
                .append(Html.attr(q))
                .append("\"> <button type=\"submit\">Search</button></form>");
        if (q.isEmpty()) {
            return Response.ok(layout.page("Search", b.toString()));
        }
        DaemonReply reply = rpc.call("search", Rpc.params().put("q", q).put("limit", LIMIT));
        if (reply instanceof DaemonReply.Refused rf) {
            return Response.html(
                    400, layout.page("Search", b + Layout.notice("error", rf.reason() + ": " + rf.message())));
        }
        if (!(reply instanceof DaemonReply.Result ok)) {
            throw new Rpc.Unanswered("search", reply);
        }
        List<JsonNode> hits = new ArrayList<>();
        ok.value().path("hits").forEach(hits::add);
        int page = Pager.page(r);
        b.append("<p>")
                .append(hits.size())
                .append(hits.size() == LIMIT ? "+" : "")
                .append(" hits</p><table><thead><tr><th>where</th>"
                        + "<th>snippet</th><th>age</th></tr></thead><tbody>");
        for (JsonNode h : Pager.rows(hits, page)) {
            String path = h.path("path").asText("");
            String where = path.endsWith(".md")
                    ? Events.fileLink(path, h.path("anchor").asText(""))
                    : Html.text(path
                            + (h.path("slice_id").isTextual()
                                    ? " (slice " + h.path("slice_id").asText() + ")"
                                    : ""));
            b.append("<tr><td>")
                    .append(where)
                    .append("</td><td>")
                    .append(Html.textWithTokens(h.path("snippet").asText("")))
                    .append("</td><td>")
                    .append(Html.text(h.path("tag").asText("")))
                    .append("</td></tr>");
        }
        b.append("</tbody></table>").append(Pager.links("/search?q=" + Html.url(q), page, hits.size()));
        return Response.ok(layout.page("Search", b.toString()));
    }
}
