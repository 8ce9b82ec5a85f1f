package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;

/** The overview: what the daemon serves, whether its writer and ledger are well, what waits for a human. */
final class OverviewPage {
    private final Rpc rpc;
    private final Layout layout;
    private final LedgerStatus ledger;

    OverviewPage(Rpc rpc, Layout layout, LedgerStatus ledger) {
        this.rpc = rpc;
        this.layout = layout;
        this.ledger = ledger;
    }

    Response render(Req r) {
        JsonNode ping = rpc.get("ping", null);
        LedgerStatus.Seen seen = ledger.latest();
        JsonNode verify = seen.result();
        int drift = rpc.get("drift.list", null).path("items").size();
        int proposals = rpc.get("proposals.list", Rpc.params().put("all", false))
                .path("items")
                .size();
        String writer = ping.path("writer").path("state").asText();
        StringBuilder b = new StringBuilder("<div class=\"cards\">");
        card(
                b,
                "Branch",
                Html.text(ping.path("branch").asText()),
                "head <code>" + Html.text(ping.path("head").asText()) + "</code>");
        card(
                b,
                "Writer",
                state(writer.equals("ok"), writer),
                ping.path("writer").has("last_error")
                        ? Html.text(ping.path("writer").path("last_error").asText())
                        : "failures: " + ping.path("writer").path("failures").asLong());
        card(
                b,
                "Ledger",
                state(verify.path("ok").asBoolean(), verify.path("ok").asBoolean() ? "verified" : "NOT verified"),
                verify.path("lines").asLong() + " lines, checked "
                        + Html.text(seen.at().toString())
                        + (verify.has("message")
                                ? " · " + Html.text(verify.path("message").asText())
                                : "") + " · <a href=\"/ledger\">ledger</a>");
        card(b, "Drift", "<a href=\"/drift\">" + drift + " open</a>", "humans' edits waiting for a decision");
        card(b, "Proposals", "<a href=\"/proposals\">" + proposals + " open</a>", "agents' changes waiting for review");
        b.append("</div>");
        b.append("<p class=\"meta\">memoryd ")
                .append(Html.text(ping.path("version").asText()))
                .append(" (protocol ")
                .append(Html.text(ping.path("protocol").asText()))
                .append("), serving ")
                .append(Html.text(ping.path("root").asText()))
                .append(" since ")
                .append(Html.text(ping.path("started").asText()))
                .append("; file watcher ")
                .append(Html.text(ping.path("watcher").path("state").asText()))
                .append(".</p>");
        return Response.ok(layout.page("Overview", b.toString()));
    }

    private static String state(boolean good, String label) {
        return "<span class=\"" + (good ? "state-ok" : "state-bad") + "\">" + Html.text(label) + "</span>";
    }

    private static void card(StringBuilder b, String title, String valueHtml, String detailHtml) {
        b.append("<div class=\"card\"><div class=\"meta\">")
                .append(Html.text(title))
                .append("</div><div class=\"n\">")
                .append(valueHtml)
                .append("</div><div class=\"meta\">")
                .append(detailHtml)
                .append("</div></div>");
    }
}
