package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.DaemonReply;

/**
 * What one event did to one section: the section's text in the commit that recorded the event
 * ({@code resolve} names it) against its text in that commit's first parent, as a diff. A section
 * missing on one side (created, renamed, or the file's first commit) diffs against nothing.
 */
final class VersionDiffPage {
    private final Rpc rpc;
    private final Layout layout;

    VersionDiffPage(Rpc rpc, Layout layout) {
        this.rpc = rpc;
        this.layout = layout;
    }

    Response render(Req r) {
        String path = r.q("path", "");
        String section = r.q("section", "");
        JsonNode e = rpc.get("resolve", Rpc.params().put("token", r.q("token", "")));
        StringBuilder b = new StringBuilder("<p>")
                .append(Events.fileLink(path, section))
                .append(" · ")
                .append(Html.link("/file/section?path=" + Html.url(path) + "&section=" + Html.url(section), "history"))
                .append("</p><p>")
                .append(Events.summary(e))
                .append("</p>");
        String commit = e.path("commit").asText(null);
        if (commit == null) {
            b.append(Layout.notice(
                    "error", "no commit of this branch recorded this event, so there is no version to compare"));
            return Response.ok(layout.page("Change to " + section + " · " + path, b.toString()));
        }
        String after = textAt(path, section, commit);
        String before = textAt(path, section, commit + "^");
        b.append("<p class=\"meta\">commit <code class=\"commit\">")
                .append(Html.text(commit))
                .append("</code> against its parent</p>")
                .append(
                        before.equals(after)
                                ? "<p>The section's text is the same on both sides (the event changed something"
                                        + " else of it, e.g. its lock).</p>"
                                : DiffHtml.unified(DiffHtml.between(
                                        before,
                                        after,
                                        "before " + commit.substring(0, 12),
                                        "after " + commit.substring(0, 12))));
        return Response.ok(layout.page("Change to " + section + " · " + path, b.toString()));
    }

    /** The section's text as of {@code at}, or empty when the file or section is not there then. */
    private String textAt(String path, String section, String at) {
        DaemonReply reply = rpc.call(
                "read", Rpc.params().put("path", path).put("section", section).put("at", at));
        if (reply instanceof DaemonReply.Result ok) {
            return ok.value().path("content").asText();
        }
        if (reply instanceof DaemonReply.Refused) {
            return "";
        }
        throw new Rpc.Unanswered("read", reply);
    }
}
