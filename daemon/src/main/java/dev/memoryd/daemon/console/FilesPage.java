package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Every memory file at the head commit ({@code files}), in path order, a page at a time, each linking to its page. */
final class FilesPage {
    private final Rpc rpc;
    private final Layout layout;

    FilesPage(Rpc rpc, Layout layout) {
        this.rpc = rpc;
        this.layout = layout;
    }

    Response render(Req r) {
        JsonNode listing = rpc.get("files", null);
        List<String> paths = new ArrayList<>();
        listing.path("files").forEach(f -> paths.add(f.asText()));
        int page = Pager.page(r);
        StringBuilder b = new StringBuilder("<p class=\"meta\">")
                .append(paths.size())
                .append(" memory files at commit <code>")
                .append(Html.text(listing.path("commit").asText()))
                .append("</code></p><table><thead><tr><th>file</th></tr></thead><tbody>");
        for (String p : Pager.rows(paths, page)) {
            b.append("<tr><td>").append(Events.fileLink(p, null)).append("</td></tr>");
        }
        b.append("</tbody></table>").append(Pager.links("/files", page, paths.size()));
        return Response.ok(layout.page("Files", b.toString()));
    }
}
