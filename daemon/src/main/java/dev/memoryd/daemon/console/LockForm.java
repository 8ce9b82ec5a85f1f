package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.DaemonReply;

/**
 * Locking and unlocking a section from its file's page: the form, and its POST, which calls
 * {@code sections.lock} or {@code sections.unlock} as the console's human actor, then shows the
 * file again saying what it did (or, refused, why).
 */
final class LockForm {
    private final Rpc rpc;
    private final Layout layout;
    private final FilePages files;

    LockForm(Rpc rpc, Layout layout, FilePages files) {
        this.rpc = rpc;
        this.layout = layout;
        this.files = files;
    }

    /** The form that locks section {@code anchor} of {@code path}, or unlocks it when {@code locked}. */
    static String html(Req r, String path, String anchor, boolean locked) {
        String action = locked ? "unlock" : "lock";
        return "<form class=\"lock-form\" method=\"post\" action=\"/file/lock\" id=\"" + action + "-"
                + Html.attr(anchor) + "\">"
                + r.csrfField() + "<input type=\"hidden\" name=\"path\" value=\"" + Html.attr(path) + "\">"
                + "<input type=\"hidden\" name=\"section\" value=\"" + Html.attr(anchor) + "\">"
                + "<input type=\"hidden\" name=\"action\" value=\"" + action + "\">"
                + "<label>why <input type=\"text\" class=\"note\" name=\"note\"></label>"
                + "<button type=\"submit\">"
                + (locked ? "Unlock (agents may change it again)" : "Lock (agents cannot change it)")
                + "</button></form>";
    }

    Response decide(Req r) {
        String path = r.f("path");
        String section = r.f("section");
        String action = r.f("action");
        if (path == null || section == null || action == null || !(action.equals("lock") || action.equals("unlock"))) {
            return Response.html(
                    400,
                    layout.page(
                            "Lock",
                            Layout.notice("error", "the form lacks a path, a section or an action (lock or unlock)")));
        }
        ObjectNode p = Rpc.params().put("path", path).put("section", section).put("actor", layout.actor());
        Rpc.putIf(p, "rationale", r.f("note"));
        DaemonReply reply = rpc.call("sections." + action, p);
        if (reply instanceof DaemonReply.Result ok) {
            String what = !ok.value().path("changed").asBoolean()
                    ? section + " was already " + action + "ed; nothing changed"
                    : action + "ed " + section + " in commit "
                            + ok.value().path("commit").asText();
            return Response.redirect(
                    "/file?path=" + Html.url(path) + "&done=" + Html.url(what) + "#" + Html.url(section));
        }
        if (reply instanceof DaemonReply.Refused rf) {
            return files.file(
                    r,
                    path,
                    Routes.status(rf.reason()),
                    Layout.notice("error", "sections." + action + " refused: " + rf.reason() + ": " + rf.message()));
        }
        throw new Rpc.Unanswered("sections." + action, reply);
    }
}
