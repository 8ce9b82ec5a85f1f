package dev.memoryd.daemon.console;

import dev.memoryd.daemon.client.DaemonReply;
import java.util.HashMap;
import java.util.Map;

/** Which page answers which path, by method, and how a page's unanswered daemon call is shown. */
final class Routes {
    private final Map<String, Page> gets = new HashMap<>();
    private final Map<String, Page> posts = new HashMap<>();
    private final Rpc rpc;
    private final Layout layout;

    private Routes(Rpc rpc, Layout layout) {
        this.rpc = rpc;
        this.layout = layout;
    }

    /** Every page of the console. */
    static Routes all(Rpc rpc, Layout layout, LedgerStatus ledgerStatus) {
        Routes r = new Routes(rpc, layout);
        r.gets.put("/console.css", req -> Assets.css());
        r.gets.put("/", new OverviewPage(rpc, layout, ledgerStatus)::render);
        DriftPages drift = new DriftPages(rpc, layout);
        r.gets.put("/drift", drift::list);
        r.gets.put("/drift/item", drift::item);
        r.posts.put("/drift/resolve", drift::resolve);
        r.posts.put("/refs/decide", drift::decideRef);
        ProposalPages proposals = new ProposalPages(rpc, layout);
        r.gets.put("/proposals", proposals::list);
        r.gets.put("/proposals/item", proposals::item);
        r.posts.put("/proposals/decide", proposals::decide);
        FilePages files = new FilePages(rpc, layout);
        r.gets.put("/files", new FilesPage(rpc, layout)::render);
        r.gets.put("/file", files::file);
        r.gets.put("/file/section", files::section);
        r.gets.put("/file/section/change", new VersionDiffPage(rpc, layout)::render);
        r.posts.put("/file/lock", new LockForm(rpc, layout, files)::decide);
        r.gets.put("/search", new SearchPage(rpc, layout)::render);
        LedgerPages ledger = new LedgerPages(rpc, layout, ledgerStatus);
        r.gets.put("/ledger", ledger::verify);
        r.posts.put("/ledger/verify", ledger::verifyNow);
        r.gets.put("/event", ledger::event);
        return r;
    }

    Page get(String path) {
        return gets.get(path);
    }

    Page post(String path) {
        return posts.get(path);
    }

    /** The page shown instead of one whose daemon call was not answered. */
    Response unanswered(Rpc.Unanswered u) {
        if (u.reply instanceof DaemonReply.NoDaemon nd) {
            return Response.html(
                    503,
                    layout.page(
                            "No daemon",
                            "<p class=\"notice error\">No daemon serves this root ("
                                    + Html.text(nd.why())
                                    + "). The console only talks to the daemon; start one:</p><pre class=\"cmd\">"
                                    + Html.text(rpc.startCommand()) + "</pre><p>then reload this page.</p>"));
        }
        if (u.reply instanceof DaemonReply.Refused rf) {
            return Response.html(
                    status(rf.reason()),
                    layout.page(
                            "Refused", Layout.notice("error", u.method + ": " + rf.reason() + ": " + rf.message())));
        }
        DaemonReply.Lost lost = (DaemonReply.Lost) u.reply;
        return Response.html(
                502,
                layout.page(
                        "Connection lost",
                        Layout.notice(
                                "error",
                                "the connection to the daemon failed" + " during " + u.method + ": " + lost.why()
                                        + "; reload to see what the daemon has now")));
    }

    /**
     * The HTTP status of a page the daemon refused, one rule for every page: what does not exist
     * 404, a request that is wrong 400, what only a person (or no one) may do 403, the daemon
     * away 503, its own failure 502, and anything the state of memory stands against 409.
     */
    static int status(String reason) {
        return switch (reason) {
            case "not_found", "unknown_section" -> 404;
            case "invalid_request", "invalid_op" -> 400;
            case "prohibited" -> 403;
            case "unavailable" -> 503;
            case "internal", "unknown_method" -> 502;
            default -> 409;
        };
    }
}
