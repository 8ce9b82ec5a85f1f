package dev.memoryd.daemon.console;

/** The frame of every page: title, the one stylesheet, the navigation, whose root and actor. */
final class Layout {
    private final String root;
    private final String actor;

    Layout(String root, String actor) {
        this.root = root;
        this.actor = actor;
    }

    String actor() {
        return actor;
    }

    /** A whole page; {@code title} is escaped here, {@code body} is HTML the caller escaped. */
    String page(String title, String body) {
        return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                + "<title>" + Html.text(title) + " · memoryd</title>"
                + "<link rel=\"stylesheet\" href=\"/console.css\"></head><body>"
                + "<header><nav><a class=\"brand\" href=\"/\">memoryd</a>"
                + "<a href=\"/\">Overview</a><a href=\"/drift\">Drift</a><a href=\"/proposals\">Proposals</a>"
                + "<a href=\"/files\">Files</a><a href=\"/search\">Search</a><a href=\"/ledger\">Ledger</a></nav>"
                + "<p class=\"who\">" + Html.text(root) + " · deciding as <b>" + Html.text(actor) + "</b></p></header>"
                + "<main><h1>" + Html.text(title) + "</h1>\n" + body + "\n</main></body></html>\n";
    }

    /** A page saying why a request was refused or could not be answered, with nothing else on it. */
    static String bare(String title, String message) {
        return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + Html.text(title)
                + " · memoryd</title></head><body><h1>" + Html.text(title) + "</h1><p>" + Html.text(message)
                + "</p></body></html>\n";
    }

    /** A one-line notice (what a decision did, or why it was refused) at the top of a page. */
    static String notice(String kind, String message) {
        return message == null ? "" : "<p class=\"notice " + kind + "\">" + Html.text(message) + "</p>";
    }
}
