package dev.memoryd.daemon.console;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A memory file: each section's text (escaped, evidence tokens as links) with its last change
 * (event, actor, time, rationale) from {@code history}; and one section's whole history.
 */
final class FilePages {
  /** How many of a file's newest events one read of its history brings. */
  static final int RECENT = 1000;

  private final Rpc rpc;
  private final Layout layout;

  FilePages(Rpc rpc, Layout layout) {
    this.rpc = rpc;
    this.layout = layout;
  }

  Response file(Req r) {
    String path = r.q("path", "");
    JsonNode f = rpc.get("read", Rpc.params().put("path", path));
    StringBuilder b = new StringBuilder("<p class=\"meta\">as of commit <code>").append(Html.text(f.path("commit").asText()))
        .append("</code></p><nav class=\"toc\"><p>");
    String sep = "";
    for (JsonNode s : f.path("sections")) {
      b.append(sep).append(Html.link("#" + s.path("anchor").asText(), s.path("name").asText()));
      sep = " · ";
    }
    b.append("</p></nav>");
    JsonNode fileHistory = rpc.get("history", Rpc.params().put("path", path).put("limit", RECENT)).path("events");
    for (JsonNode s : f.path("sections")) {
      String anchor = s.path("anchor").asText();
      JsonNode sec = rpc.get("read", Rpc.params().put("path", path).put("section", anchor));
      b.append("<section class=\"memory\" id=\"").append(Html.attr(anchor)).append("\"><h2>")
          .append(Html.text(s.path("name").asText())).append("</h2>");
      JsonNode last = lastChange(fileHistory, path, anchor);
      b.append("<p class=\"meta\">last change: ").append(last == null ? "none recorded" : Events.summary(last))
          .append(" · ").append(Html.link("/file/section?path=" + Html.url(path) + "&section=" + Html.url(anchor), "history"))
          .append("</p><pre class=\"content\">").append(Html.textWithTokens(sec.path("content").asText())).append("</pre></section>");
    }
    return Response.ok(layout.page(path, b.toString()));
  }

  /**
   * The newest event that changed section {@code anchor}: one naming it, or a human's whole-file
   * edit listing it as changed (the file's import, a reordering), which {@code history} with
   * {@code section} does not return. Looked for in the file's {@link #RECENT} newest events, then
   * in the section's own history.
   */
  private JsonNode lastChange(JsonNode fileHistory, String path, String anchor) {
    for (JsonNode e : fileHistory) {
      if (anchor.equals(e.path("section_anchor").asText(null)) || contains(e.at("/payload/changed"), anchor)) {
        return e;
      }
    }
    JsonNode own = rpc.get("history", Rpc.params().put("path", path).put("section", anchor).put("limit", 1)).path("events");
    return own.isEmpty() ? null : own.get(0);
  }

  private static boolean contains(JsonNode array, String value) {
    for (JsonNode v : array) {
      if (v.asText().equals(value)) {
        return true;
      }
    }
    return false;
  }

  Response section(Req r) {
    String path = r.q("path", "");
    String section = r.q("section", "");
    JsonNode sec = rpc.get("read", Rpc.params().put("path", path).put("section", section));
    List<JsonNode> events = new ArrayList<>();
    rpc.get("history", Rpc.params().put("path", path).put("section", section).put("limit", 100_000)).path("events")
        .forEach(events::add);
    int page = Pager.page(r);
    StringBuilder b = new StringBuilder("<p>").append(Events.fileLink(path, section)).append("</p><pre class=\"content\">")
        .append(Html.textWithTokens(sec.path("content").asText())).append("</pre><h2>History, newest first</h2>");
    b.append("<table><thead><tr><th>when</th><th>op</th><th>actor</th><th>rationale</th><th>event</th></tr></thead><tbody>");
    for (JsonNode e : Pager.rows(events, page)) {
      b.append("<tr><td>").append(Html.text(e.path("ts").asText())).append("</td><td>").append(Html.text(e.path("op").asText()))
          .append("</td><td>").append(Html.text(e.path("actor").asText())).append("</td><td>")
          .append(Html.textWithTokens(e.path("rationale").asText(""))).append("</td><td>").append(Events.link(e))
          .append("</td></tr>");
    }
    b.append("</tbody></table>").append(Pager.links("/file/section?path=" + Html.url(path) + "&section=" + Html.url(section),
        page, events.size()));
    return Response.ok(layout.page(sec.path("section").asText(section) + " · " + path, b.toString()));
  }
}
