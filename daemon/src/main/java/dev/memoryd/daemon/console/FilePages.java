package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A memory file: each section's text (escaped, evidence tokens as links) with its last change
 * (event, actor, time, rationale) from {@code sections.list}; and one section's history a page at a time.
 */
final class FilePages {
    private final Rpc rpc;
    private final Layout layout;

    FilePages(Rpc rpc, Layout layout) {
        this.rpc = rpc;
        this.layout = layout;
    }

    Response file(Req r) {
        String done = r.q("done", "");
        return file(r, r.q("path", ""), 200, done.isEmpty() ? "" : Layout.notice("ok", done));
    }

    /** The file's page with {@code noticeHtml} on top, answered with {@code status}. */
    Response file(Req r, String path, int status, String noticeHtml) {
        JsonNode f = rpc.get("sections.list", Rpc.params().put("path", path));
        StringBuilder b = new StringBuilder(noticeHtml)
                .append("<p class=\"meta\">as of commit <code>")
                .append(Html.text(f.path("commit").asText()))
                .append("</code></p><nav class=\"toc\"><p>");
        String sep = "";
        for (JsonNode s : f.path("sections")) {
            b.append(sep).append(Html.link("#" + nameOf(s), s.path("name").asText()));
            sep = " · ";
        }
        b.append("</p></nav>");
        for (JsonNode s : f.path("sections")) {
            String anchor = nameOf(s);
            boolean locked = s.path("locked").asBoolean();
            JsonNode last = s.path("last_change");
            b.append("<section class=\"memory")
                    .append(locked ? " locked" : "")
                    .append("\" id=\"")
                    .append(Html.attr(anchor))
                    .append("\"><h2>")
                    .append(Html.text(s.path("name").asText()))
                    .append(
                            locked
                                    ? " <span class=\"lock\" title=\"agents cannot change this section\">locked</span>"
                                    : "")
                    .append("</h2>");
            b.append("<p class=\"meta\">last change: ")
                    .append(last.isObject() ? Events.summary(last) : "none recorded")
                    .append(" · ")
                    .append(Html.link(
                            "/file/section?path=" + Html.url(path) + "&section=" + Html.url(anchor), "history"))
                    .append("</p>")
                    .append(LockForm.html(r, path, anchor, locked))
                    .append("<pre class=\"content\">")
                    .append(Html.textWithTokens(s.path("content").asText()))
                    .append("</pre></section>");
        }
        return Response.html(status, layout.page(path, b.toString()));
    }

    /** How a section of {@code sections.list} is named: its anchor, or its heading when it has none. */
    private static String nameOf(JsonNode section) {
        return section.path("anchor").asText(section.path("name").asText());
    }

    Response section(Req r) {
        String path = r.q("path", "");
        String section = r.q("section", "");
        JsonNode sec = rpc.get("read", Rpc.params().put("path", path).put("section", section));
        int page = Pager.page(r);
        JsonNode h = rpc.get(
                "sections.history",
                Rpc.params()
                        .put("path", path)
                        .put("section", section)
                        .put("offset", (page - 1) * Pager.SIZE)
                        .put("limit", Pager.SIZE));
        StringBuilder b = new StringBuilder("<p>")
                .append(Events.fileLink(path, section))
                .append("</p><pre class=\"content\">")
                .append(Html.textWithTokens(sec.path("content").asText()))
                .append("</pre><h2>History, newest first</h2>");
        b.append(
                "<table><thead><tr><th>when</th><th>op</th><th>actor</th><th>rationale</th><th>event</th><th></th></tr></thead><tbody>");
        for (JsonNode e : h.path("events")) {
            b.append("<tr><td>")
                    .append(Html.text(e.path("ts").asText()))
                    .append("</td><td>")
                    .append(Html.text(e.path("op").asText()))
                    .append("</td><td>")
                    .append(Html.text(e.path("actor").asText()))
                    .append("</td><td>")
                    .append(Html.textWithTokens(e.path("rationale").asText("")))
                    .append("</td><td>")
                    .append(Events.link(e))
                    .append("</td><td>")
                    .append(Html.link(
                            "/file/section/change?path=" + Html.url(path) + "&section=" + Html.url(section) + "&token="
                                    + Html.url(Events.token(e)),
                            "diff"))
                    .append("</td></tr>");
        }
        b.append("</tbody></table>")
                .append(Pager.links(
                        "/file/section?path=" + Html.url(path) + "&section=" + Html.url(section),
                        page,
                        h.path("total").asInt()));
        return Response.ok(layout.page(sec.path("section").asText(section) + " · " + path, b.toString()));
    }
}
