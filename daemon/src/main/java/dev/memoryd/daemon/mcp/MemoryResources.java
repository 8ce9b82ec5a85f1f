package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.memoryd.daemon.client.DaemonReply;
import dev.memoryd.daemon.layout.RootLayout;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceTemplateSpecification;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Memory files as MCP resources: {@code memoryd://<path>}, {@code text/markdown}, read through
 * the daemon's {@code read} and listed from its {@code files}. A read names the file; a file the
 * daemon does not have is the protocol's "resource not found" ({@code -32002}), and no daemon an
 * error saying how to start one.
 */
final class MemoryResources {
    static final String MIME = "text/markdown";

    /** The files of one commit, as the daemon listed them; no daemon: no commit and no files. */
    record Listing(String commit, List<String> paths) {}

    private final DaemonLink link;

    MemoryResources(DaemonLink link) {
        this.link = link;
    }

    /** The daemon's memory files now; an empty listing with a null commit when it cannot say. */
    Listing list() {
        DaemonReply r = link.call("files", JsonNodeFactory.instance.objectNode());
        if (!(r instanceof DaemonReply.Result ok)) {
            return new Listing(null, List.of());
        }
        List<String> paths = new ArrayList<>();
        ok.value().path("files").forEach(f -> paths.add(f.asText()));
        JsonNode c = ok.value().path("commit");
        return new Listing(c.isTextual() ? c.asText() : null, paths);
    }

    /** The resource of one memory file. */
    SyncResourceSpecification spec(String path) {
        McpSchema.Resource r = McpSchema.Resource.builder()
                .uri(ResourceUris.of(path))
                .name(path)
                .title(path.substring(path.lastIndexOf('/') + 1))
                .description(
                        "Memory file " + path + " (read a section with the read tool to get its hash before a write).")
                .mimeType(MIME)
                .build();
        return new SyncResourceSpecification(r, (exchange, req) -> read(req.uri()));
    }

    /** The template every memory file matches, so a file created since the last listing reads too. */
    SyncResourceTemplateSpecification template() {
        McpSchema.ResourceTemplate t = McpSchema.ResourceTemplate.builder()
                .uriTemplate(ResourceUris.TEMPLATE)
                .name("memory-file")
                .title("Memory file")
                .description("A memory file by its path under the memory root, e.g. memoryd://users/sam/overview.md.")
                .mimeType(MIME)
                .build();
        return new SyncResourceTemplateSpecification(t, (exchange, req) -> read(req.uri()));
    }

    McpSchema.ReadResourceResult read(String uri) {
        String path = ResourceUris.path(uri);
        if (path == null || !RootLayout.isMemoryFile(path)) { // resources are memory files, nothing else the root holds
            throw McpError.RESOURCE_NOT_FOUND.apply(uri);
        }
        DaemonReply r = link.call("read", JsonNodeFactory.instance.objectNode().put("path", path));
        if (r instanceof DaemonReply.Result ok) {
            return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(
                    uri, MIME, ok.value().path("content").asText())));
        }
        if (r instanceof DaemonReply.Refused f
                && (f.reason().equals("not_found") || f.reason().equals("invalid_request"))) {
            throw McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND)
                    .message("Resource not found: " + f.message())
                    .data(Map.of("uri", uri, "reason", f.reason()))
                    .build();
        }
        String why = r instanceof DaemonReply.Refused f
                ? f.reason() + ": " + f.message()
                : r instanceof DaemonReply.NoDaemon n
                        ? "no memoryd daemon is serving " + link.root() + " (" + n.why() + "); start one with: "
                                + link.startCommand()
                        : "the connection to the daemon broke before its reply (" + ((DaemonReply.Lost) r).why() + ")";
        throw McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR)
                .message(why)
                .data(Map.of("uri", uri))
                .build();
    }
}
