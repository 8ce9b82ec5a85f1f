package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.DaemonReply;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Proposals: agents' writes to sections marked for review. One proposal shows its rationale, its
 * evidence tokens resolved to their events, and per changed section the diff from the section on
 * the branch now to the section as proposed; accepting or rejecting is {@code proposals.accept}
 * or {@code proposals.reject} with the console's actor and the note given.
 */
final class ProposalPages {
    private final Rpc rpc;
    private final Layout layout;

    ProposalPages(Rpc rpc, Layout layout) {
        this.rpc = rpc;
        this.layout = layout;
    }

    Response list(Req r) {
        boolean all = r.q("all", "").equals("1");
        List<JsonNode> items = new ArrayList<>();
        rpc.get("proposals.list", Rpc.params().put("all", all)).path("items").forEach(items::add);
        int page = Pager.page(r);
        StringBuilder b = new StringBuilder(Layout.notice("ok", r.query.get("done")));
        b.append("<p>")
                .append(
                        all
                                ? "<a href=\"/proposals\">open ones only</a>"
                                : "<a href=\"/proposals?all=1\">all, closed ones too</a>")
                .append("</p>");
        if (items.isEmpty()) {
            b.append("<p>No ").append(all ? "" : "open ").append("proposals.</p>");
            return Response.ok(layout.page("Proposals", b.toString()));
        }
        b.append(
                "<table><thead><tr><th>proposal</th><th>status</th><th>by</th><th>created</th><th>changes</th><th>rationale</th></tr>"
                        + "</thead><tbody>");
        for (JsonNode i : Pager.rows(items, page)) {
            String id = i.path("id").asText();
            StringBuilder what = new StringBuilder();
            i.path("changes")
                    .forEach(c -> what.append(what.length() == 0 ? "" : "; ")
                            .append(c.path("summary").asText())
                            .append(" in ")
                            .append(c.path("path").asText()));
            b.append("<tr><td>")
                    .append(Html.link("/proposals/item?id=" + Html.url(id), id))
                    .append("</td><td>")
                    .append(Html.text(i.path("status").asText()))
                    .append("</td><td>")
                    .append(Html.text(i.path("actor").asText()))
                    .append("</td><td>")
                    .append(Html.text(i.path("created").asText()))
                    .append("</td><td>")
                    .append(Html.text(what.toString()))
                    .append("</td><td>")
                    .append(Html.text(i.path("rationale").asText()))
                    .append("</td></tr>");
        }
        b.append("</tbody></table>").append(Pager.links(all ? "/proposals?all=1" : "/proposals", page, items.size()));
        return Response.ok(layout.page("Proposals", b.toString()));
    }

    Response item(Req r) {
        return item(r.q("id", ""), r, 200, null);
    }

    private Response item(String id, Req r, int status, String error) {
        JsonNode p = rpc.get("proposals.show", Rpc.params().put("id", id));
        StringBuilder b = new StringBuilder(Layout.notice("error", error));
        b.append("<p><b>")
                .append(Html.text(p.path("status").asText()))
                .append("</b> · by ")
                .append(Html.text(p.path("actor").asText()))
                .append(" at ")
                .append(Html.text(p.path("created").asText()))
                .append(" · branch <code>")
                .append(Html.text(p.path("branch").asText()))
                .append("</code> commit <code>")
                .append(Html.text(p.path("commit").asText()))
                .append("</code></p>");
        if (p.has("closed_by")) {
            b.append("<p>closed by ")
                    .append(Html.text(p.path("closed_by").asText()))
                    .append(
                            p.path("note").isTextual()
                                    ? ": " + Html.text(p.path("note").asText())
                                    : "")
                    .append("</p>");
        }
        b.append("<h2>Rationale</h2><pre>")
                .append(Html.textWithTokens(p.path("rationale").asText()))
                .append("</pre>");
        evidence(b, p);
        for (JsonNode c : p.path("changes")) {
            change(b, p.path("commit").asText(), c);
        }
        if (p.path("status").asText().equals("open")) {
            b.append("<h2>Decide</h2>");
            form(b, r, id, "accept", "Accept (apply onto the branch now)");
            form(b, r, id, "reject", "Reject (recorded; the proposal's branch stays)");
        }
        return Response.html(status, layout.page("Proposal " + id, b.toString()));
    }

    /** The evidence tokens the ops cite, each resolved to the event it names. */
    private void evidence(StringBuilder b, JsonNode p) {
        Set<String> tokens = new LinkedHashSet<>();
        p.path("ops").forEach(op -> op.path("evidence_refs").forEach(t -> tokens.add(t.asText())));
        if (tokens.isEmpty()) {
            return;
        }
        b.append("<h2>Evidence</h2><ul>");
        for (String t : tokens) {
            b.append("<li>");
            if (rpc.call("resolve", Rpc.params().put("token", t)) instanceof DaemonReply.Result ok) {
                JsonNode e = ok.value();
                b.append(Events.summary(e))
                        .append(" <span class=\"meta\">")
                        .append(Html.text(e.path("file_path").asText("")))
                        .append("</span>");
            } else {
                b.append("<code>")
                        .append(Html.text(t))
                        .append("</code> <span class=\"state-bad\">resolves to no recorded event</span>");
            }
            b.append("</li>");
        }
        b.append("</ul>");
    }

    /** One changed section: the diff from the branch now to the proposal's commit. */
    private void change(StringBuilder b, String commit, JsonNode c) {
        String path = c.path("path").asText();
        String section = c.path("section").asText();
        b.append("<h2>")
                .append(Html.text(c.path("summary").asText()))
                .append(" · ")
                .append(Events.fileLink(path, section))
                .append("</h2>");
        ObjectNode now = Rpc.params().put("path", path).put("section", section);
        String nowText = "";
        if (rpc.call("read", now) instanceof DaemonReply.Result ok) {
            nowText = ok.value().path("content").asText();
            if (!c.path("hash").isNull()
                    && !ok.value().path("hash").asText().equals(c.path("hash").asText())) {
                b.append("<p class=\"notice error\">This section changed on the branch since the proposal was made;"
                        + " accepting may conflict.</p>");
            }
        }
        String proposed = "";
        if (rpc.call("read", now.deepCopy().put("at", commit)) instanceof DaemonReply.Result ok) {
            proposed = ok.value().path("content").asText();
        }
        b.append(DiffHtml.unified(DiffHtml.between(
                nowText, proposed, path + " § " + section + " (branch now)", path + " § " + section + " (proposed)")));
    }

    private static void form(StringBuilder b, Req r, String id, String decision, String label) {
        b.append("<form class=\"decide\" method=\"post\" action=\"/proposals/decide\" id=\"form-")
                .append(decision)
                .append("\">")
                .append(r.csrfField())
                .append("<input type=\"hidden\" name=\"id\" value=\"")
                .append(Html.attr(id))
                .append("\">")
                .append("<input type=\"hidden\" name=\"decision\" value=\"")
                .append(decision)
                .append("\">")
                .append("<label>note <input type=\"text\" class=\"note\" name=\"note\"></label>")
                .append("<button type=\"submit\">")
                .append(Html.text(label))
                .append("</button></form>");
    }

    Response decide(Req r) {
        String id = r.f("id");
        String decision = r.f("decision");
        if (id == null || decision == null || !(decision.equals("accept") || decision.equals("reject"))) {
            return Response.html(
                    400,
                    layout.page(
                            "Proposals",
                            Layout.notice("error", "the form lacks an id or a decision (accept or reject)")));
        }
        ObjectNode p = Rpc.params().put("id", id).put("actor", layout.actor());
        Rpc.putIf(p, "note", r.f("note"));
        String method = "proposals." + decision;
        DaemonReply reply = rpc.call(method, p);
        if (reply instanceof DaemonReply.Result ok) {
            return Response.redirect("/proposals?done="
                    + Html.url(ok.value().path("status").asText(decision) + " " + id + " in commit "
                            + ok.value().path("commit").asText()));
        }
        if (reply instanceof DaemonReply.Refused rf) {
            return item(id, r, Routes.status(rf.reason()), method + " refused: " + rf.reason() + ": " + rf.message());
        }
        throw new Rpc.Unanswered(method, reply);
    }
}
