package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.DaemonReply;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The drift queue: the open items, one item with the diff from what the ledger recorded to the
 * file as the human left it, and its resolutions: {@code drift.resolve} (accept_current, restore,
 * reanchor, dismiss) for a memory file, {@code refs.repin} or {@code refs.retire} for a file
 * reference, each with the console's actor and the note given.
 */
final class DriftPages {
    private final Rpc rpc;
    private final Layout layout;

    DriftPages(Rpc rpc, Layout layout) {
        this.rpc = rpc;
        this.layout = layout;
    }

    Response list(Req r) {
        List<JsonNode> items = new ArrayList<>();
        rpc.get("drift.list", null).path("items").forEach(items::add);
        int page = Pager.page(r);
        StringBuilder b = new StringBuilder(Layout.notice("ok", r.query.get("done")));
        if (items.isEmpty()) {
            b.append("<p>No open drift: every human edit is recorded.</p>");
            return Response.ok(layout.page("Drift", b.toString()));
        }
        b.append(
                "<table><thead><tr><th>kind</th><th>path</th><th>reason</th><th>since</th><th></th></tr></thead><tbody>");
        for (JsonNode i : Pager.rows(items, page)) {
            String id = i.path("id").asText();
            b.append("<tr><td>")
                    .append(Html.text(i.path("kind").asText()))
                    .append("</td><td>")
                    .append(Html.text(i.path("path").asText()))
                    .append("</td><td>")
                    .append(Html.text(i.path("reason").asText()))
                    .append("</td><td>")
                    .append(Html.text(i.path("since").asText()))
                    .append("</td><td>")
                    .append(Html.link("/drift/item?id=" + Html.url(id), "decide"))
                    .append("</td></tr>");
        }
        b.append("</tbody></table>").append(Pager.links("/drift", page, items.size()));
        return Response.ok(layout.page("Drift", b.toString()));
    }

    Response item(Req r) {
        return item(r.q("id", ""), r, 200, null);
    }

    private Response item(String id, Req r, int status, String error) {
        JsonNode d = rpc.get("drift.show", Rpc.params().put("id", id));
        String kind = d.path("kind").asText();
        String path = d.path("path").asText();
        StringBuilder b = new StringBuilder(Layout.notice("error", error));
        b.append("<p><b>")
                .append(Html.text(kind))
                .append("</b> in ")
                .append(Html.text(path))
                .append(" since ")
                .append(Html.text(d.path("since").asText()))
                .append("</p><p>")
                .append(Html.text(d.path("reason").asText()))
                .append("</p>");
        if (!d.path("problems").isEmpty()) {
            b.append("<ul>");
            for (JsonNode p : d.path("problems")) {
                b.append("<li>line ")
                        .append(p.path("line").asInt())
                        .append(": <code>")
                        .append(Html.text(p.path("rule").asText()))
                        .append("</code> ")
                        .append(Html.text(p.path("message").asText()))
                        .append("</li>");
            }
            b.append("</ul>");
        }
        for (JsonNode c : d.path("human").path("commits")) {
            b.append("<p class=\"meta\">commit <code>")
                    .append(Html.text(c.path("id").asText()))
                    .append("</code> by ")
                    .append(Html.text(c.path("author").asText()))
                    .append(" at ")
                    .append(Html.text(c.path("date").asText()))
                    .append(": ")
                    .append(Html.text(c.path("subject").asText()))
                    .append("</p>");
        }
        b.append("<h2>What the human changed (recorded → now)</h2>")
                .append(DiffHtml.unified(d.path("diff").asText()));
        b.append("<h2>Resolve</h2>");
        if (kind.startsWith("ref_")) {
            refForms(b, r, id);
        } else {
            fileForms(b, r, id, path, d.path("diff").asText());
        }
        return Response.html(status, layout.page("Drift " + id, b.toString()));
    }

    private static void refForms(StringBuilder b, Req r, String id) {
        decideForm(b, r, "/refs/decide", id, "action", "repin", "Re-pin the reference to the file as it is now", "");
        decideForm(b, r, "/refs/decide", id, "action", "retire", "Retire the reference", "");
        decideForm(b, r, "/drift/resolve", id, "resolution", "dismiss", "Dismiss, leaving the reference as it is", "");
    }

    private void fileForms(StringBuilder b, Req r, String id, String path, String diff) {
        decideForm(b, r, "/drift/resolve", id, "resolution", "accept_current", "Accept the file as it is now", "");
        decideForm(
                b,
                r,
                "/drift/resolve",
                id,
                "resolution",
                "restore",
                "Restore the recorded text (the human's text stays in the ledger)",
                "");
        Set<String> from = headings(diff, '+');
        decideForm(
                b,
                r,
                "/drift/resolve",
                id,
                "resolution",
                "reanchor",
                "Reanchor",
                "<label>rename section " + picker("from", from.isEmpty() ? currentSections(path) : from)
                        + "</label><label>back to " + picker("to", headings(diff, '-')) + "</label>");
        decideForm(b, r, "/drift/resolve", id, "resolution", "dismiss", "Dismiss, leaving the file as it is", "");
    }

    /** One decision's form: the hidden fields, the extra inputs, a note, and the button. */
    private static void decideForm(
            StringBuilder b,
            Req r,
            String action,
            String id,
            String field,
            String value,
            String label,
            String extraHtml) {
        b.append("<form class=\"decide\" method=\"post\" action=\"")
                .append(action)
                .append("\" id=\"form-")
                .append(Html.attr(value))
                .append("\">")
                .append(r.csrfField())
                .append("<input type=\"hidden\" name=\"id\" value=\"")
                .append(Html.attr(id))
                .append("\">")
                .append("<input type=\"hidden\" name=\"")
                .append(field)
                .append("\" value=\"")
                .append(Html.attr(value))
                .append("\">")
                .append(extraHtml)
                .append("<label>note <input type=\"text\" class=\"note\" name=\"note\"></label>")
                .append("<button type=\"submit\">")
                .append(Html.text(label))
                .append("</button></form>");
    }

    /** A select of {@code names}, or a text field when there is none to pick from. */
    private static String picker(String name, Set<String> names) {
        if (names.isEmpty()) {
            return "<input type=\"text\" name=\"" + name + "\">";
        }
        StringBuilder b = new StringBuilder("<select name=\"" + name + "\">");
        for (String n : names) {
            b.append("<option value=\"")
                    .append(Html.attr(n))
                    .append("\">")
                    .append(Html.text(n))
                    .append("</option>");
        }
        return b.append("</select>").toString();
    }

    /** The sections of the file as it is now (none when the daemon cannot read it, e.g. it is deleted). */
    private Set<String> currentSections(String path) {
        Set<String> names = new LinkedHashSet<>();
        if (rpc.call("read", Rpc.params().put("path", path)) instanceof DaemonReply.Result ok) {
            ok.value().path("sections").forEach(s -> names.add(s.path("name").asText()));
        }
        return names;
    }

    /**
     * The H2 headings a unified diff adds ({@code side} '+': what the human renamed a section to)
     * or removes ('-': the recorded names a reanchor may go back to).
     */
    static Set<String> headings(String diff, char side) {
        Set<String> names = new LinkedHashSet<>();
        for (String line : diff.split("\n")) {
            if (line.length() > 4 && line.charAt(0) == side && line.startsWith("## ", 1)) {
                names.add(line.substring(4).strip());
            }
        }
        return names;
    }

    Response resolve(Req r) {
        String id = r.f("id");
        String resolution = r.f("resolution");
        if (id == null || resolution == null) {
            return Response.html(
                    400, layout.page("Drift", Layout.notice("error", "the form lacks an id or a resolution")));
        }
        ObjectNode p = Rpc.params().put("id", id).put("resolution", resolution).put("actor", layout.actor());
        if (resolution.equals("reanchor")) {
            Rpc.putIf(p, "from", r.f("from"));
            Rpc.putIf(p, "to", r.f("to"));
        }
        Rpc.putIf(p, "note", r.f("note"));
        return decided(r, id, "drift.resolve", p, "resolved " + id + " (" + resolution + ")");
    }

    Response decideRef(Req r) {
        String id = r.f("id");
        String action = r.f("action");
        if (id == null || action == null || !(action.equals("repin") || action.equals("retire"))) {
            return Response.html(
                    400,
                    layout.page(
                            "Drift", Layout.notice("error", "the form lacks an id or an action (repin or retire)")));
        }
        ObjectNode p = Rpc.params().put("id", id).put("actor", layout.actor());
        Rpc.putIf(p, "note", r.f("note"));
        return decided(r, id, "refs." + action, p, action + " of " + id);
    }

    /** The decision's outcome: back to the queue saying what it did, or the item again saying why not. */
    private Response decided(Req r, String id, String method, ObjectNode p, String what) {
        DaemonReply reply = rpc.call(method, p);
        if (reply instanceof DaemonReply.Result ok) {
            String commit = ok.value().path("commit").asText("");
            return Response.redirect(
                    "/drift?done=" + Html.url(what + (commit.isEmpty() ? "" : " in commit " + commit)));
        }
        if (reply instanceof DaemonReply.Refused rf) {
            String why = method + " refused: " + rf.reason() + ": " + rf.message();
            if (rpc.call("drift.show", Rpc.params().put("id", id)) instanceof DaemonReply.Result) {
                return item(id, r, Routes.status(rf.reason()), why);
            }
            return Response.html(
                    Routes.status(rf.reason()),
                    layout.page(
                            "Drift", Layout.notice("error", why) + "<p><a href=\"/drift\">back to the queue</a></p>"));
        }
        throw new Rpc.Unanswered(method, reply);
    }
}
