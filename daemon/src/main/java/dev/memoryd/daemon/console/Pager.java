package dev.memoryd.daemon.console;

import java.util.List;

/** Long lists a page at a time: which page a request asks for, its rows, and the links to the others. */
final class Pager {
    static final int SIZE = 50;

    private Pager() {}

    /** The 1-based page a request asks for ({@code page}), 1 when absent or not a number. */
    static int page(Req r) {
        try {
            return Math.max(1, Integer.parseInt(r.q("page", "1")));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    static <T> List<T> rows(List<T> all, int page) {
        int from = Math.min(all.size(), (page - 1) * SIZE);
        return all.subList(from, Math.min(all.size(), from + SIZE));
    }

    /**
     * Previous and next links around page {@code page} of {@code total} rows; {@code href} is the
     * page's path and query (escaped by the caller's {@link Html#url}) to which {@code page=N} is added.
     */
    static String links(String href, int page, int total) {
        int pages = Math.max(1, (total + SIZE - 1) / SIZE);
        if (pages == 1) {
            return "";
        }
        String sep = href.contains("?") ? "&" : "?";
        StringBuilder b = new StringBuilder("<p class=\"pager\">");
        if (page > 1) {
            b.append(Html.link(href + sep + "page=" + (page - 1), "← previous"));
        }
        b.append("<span>page ")
                .append(page)
                .append(" of ")
                .append(pages)
                .append(" (")
                .append(total)
                .append(" in all)</span>");
        if (page < pages) {
            b.append(Html.link(href + sep + "page=" + (page + 1), "next →"));
        }
        return b.append("</p>").toString();
    }
}
