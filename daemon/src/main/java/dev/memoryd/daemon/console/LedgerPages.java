package dev.memoryd.daemon.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.rpc.JsonRpc;

/** The ledger: whether every chain verifies ({@code ledger.verify}), and one event by its token ({@code resolve}). */
final class LedgerPages {
    private final Rpc rpc;
    private final Layout layout;
    private final LedgerStatus status;

    LedgerPages(Rpc rpc, Layout layout, LedgerStatus status) {
        this.rpc = rpc;
        this.layout = layout;
        this.status = status;
    }

    /** The latest check's result (taken in the background, see {@link LedgerStatus}). */
    Response verify(Req r) {
        return show(r, status.latest());
    }

    /** Verifies now. */
    Response verifyNow(Req r) {
        return show(r, status.now());
    }

    private Response show(Req r, LedgerStatus.Seen seen) {
        JsonNode v = seen.result();
        boolean ok = v.path("ok").asBoolean();
        StringBuilder b = new StringBuilder("<p class=\"notice ")
                .append(ok ? "ok" : "error")
                .append("\">")
                .append(
                        ok
                                ? "Every chain verifies: " + v.path("lines").asLong() + " lines."
                                : "Verification FAILED at line "
                                        + v.path("first_bad_line").asLong() + " of "
                                        + Html.text(v.path("file").asText()) + ": "
                                        + Html.text(v.path("reason").asText()) + " "
                                        + Html.text(v.path("message").asText()))
                .append("</p><form method=\"post\" action=\"/ledger/verify\">")
                .append(r.csrfField())
                .append("<p class=\"meta\">checked ")
                .append(Html.text(seen.at().toString()))
                .append(" at head <code>")
                .append(Html.text(String.valueOf(seen.head())))
                .append("</code> <button type=\"submit\">Verify now</button></p></form>")
                .append("<h2>An event</h2><form method=\"get\" action=\"/event\"><label>evidence token "
                        + "<input type=\"text\" class=\"note\" name=\"token\" placeholder=\"ev:20261124T140051Z-01…\"></label> "
                        + "<button type=\"submit\">Show</button></form><p class=\"meta\">Each section's history on a file's page links"
                        + " its events.</p>");
        return Response.ok(layout.page("Ledger", b.toString()));
    }

    Response event(Req r) throws JsonProcessingException {
        String token = r.q("token", "");
        JsonNode e = rpc.get("resolve", Rpc.params().put("token", token));
        String path = e.path("file_path").asText("");
        StringBuilder b = new StringBuilder("<p>").append(Events.summary(e)).append("</p>");
        if (!path.isEmpty()) {
            b.append("<p>file: ")
                    .append(Events.fileLink(path, e.path("section_anchor").asText("")))
                    .append("</p>");
        }
        b.append("<p>commit: ")
                .append(
                        e.path("commit").isTextual()
                                ? "<code class=\"commit\">"
                                        + Html.text(e.path("commit").asText()) + "</code> (<code>git show "
                                        + Html.text(e.path("commit").asText().substring(0, 12)) + "</code> in the root)"
                                : "none on this branch (another branch's or replica's event)")
                .append("</p>");
        if (!e.path("evidence_refs").isEmpty()) {
            b.append("<p>evidence: ");
            String sep = "";
            for (JsonNode t : e.path("evidence_refs")) {
                b.append(sep).append(Html.link("/event?token=" + Html.url(t.asText()), t.asText()));
                sep = " · ";
            }
            b.append("</p>");
        }
        b.append("<h2>Event</h2><pre>")
                .append(Html.text(
                        JsonRpc.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(e)))
                .append("</pre>");
        return Response.ok(layout.page("Event " + e.path("event_id").asText(), b.toString()));
    }
}
