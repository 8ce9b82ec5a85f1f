package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.daemon.client.DaemonReply;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The daemon's replies as MCP tool results: a result is the structured content (and its JSON as
 * text); a refusal, or no daemon at all, is a tool error ({@code isError: true}) of two text
 * blocks: the reason and what to do next, then the daemon's {@code error.data} as JSON. A tool
 * error carries no structured content: clients check structured content against the tool's
 * {@code outputSchema} even on errors (the TypeScript SDK's client does, and rejects the whole
 * reply), and {@code error.data} is not the method's result.
 */
final class ToolReplies {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private ToolReplies() {}

    static CallToolResult of(DaemonReply reply, DaemonLink link) {
        if (reply instanceof DaemonReply.Result r) {
            return CallToolResult.builder()
                    .content(List.of(new McpSchema.TextContent(r.value().toString())))
                    .structuredContent(r.value())
                    .isError(false)
                    .build();
        }
        if (reply instanceof DaemonReply.Refused f) {
            String message = f.message().endsWith(".")
                    ? f.message().substring(0, f.message().length() - 1)
                    : f.message();
            return error(f.reason() + ": " + message + next(f.reason(), f.data()), JSON.convertValue(f.data(), MAP));
        }
        if (reply instanceof DaemonReply.NoDaemon n) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("reason", "unavailable");
            data.put("recorded", false);
            data.put("start", link.startCommand());
            return error(
                    "unavailable: no memoryd daemon is serving " + link.root() + " (" + n.why()
                            + "); nothing was sent or written. Start one with: " + link.startCommand()
                            + " (in a shell, left running), then call this tool again.",
                    data);
        }
        DaemonReply.Lost l = (DaemonReply.Lost) reply;
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("reason", "unavailable");
        data.put("recorded", "unknown");
        return error(
                "unavailable: the connection to the daemon broke before its reply (" + l.why()
                        + "); the call may or may not have taken effect. Check with read or history before retrying"
                        + " (a write with the same idempotency_key is safe to repeat).",
                data);
    }

    static CallToolResult error(String text, Map<String, Object> data) {
        String json;
        try {
            json = JSON.writeValueAsString(data == null ? Map.of() : data);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("error data that is not JSON: " + data, e);
        }
        return CallToolResult.builder()
                .content(List.of(new McpSchema.TextContent(text), new McpSchema.TextContent(json)))
                .isError(true)
                .build();
    }

    /** What a model should do after a refusal with {@code reason}. */
    static String next(String reason, com.fasterxml.jackson.databind.JsonNode data) {
        return switch (reason) {
            case "conflict" ->
                ". What it acts on changed since it was read: read it again (drift_show for a drift item),"
                        + " then retry; a write with the new hash as before_hash (data.current_hash is the hash"
                        + " now). Nothing was written.";
            case "cap_exceeded" ->
                ". The section is at its cap: curate_items (merge or remove items, with a reason)"
                        + " first, or give override_rationale saying why now. Nothing was written.";
            case "section_locked" ->
                ". A human locked this section (slice.meta.locked_sections): leave it, or"
                        + " describe the change for a human to make. Nothing was written.";
            case "prohibited" ->
                ". This is not allowed (the message says why: memoryd never deletes files, removes sections or"
                        + " anchors, edits ids or writes the Change Log, and some decisions only a person makes);"
                        + " do not retry it. Nothing was written.";
            case "drift" ->
                data != null && data.has("drift_id")
                        ? ". A human's edit of this file waits in the drift queue (drift_list, drift_show with"
                                + " data.drift_id) until a maintainer resolves it; write elsewhere meanwhile. Nothing was written."
                        : ". The file holds a human's edit memoryd cannot record (the message says why); write elsewhere"
                                + " until a person fixes the file. Nothing was written.";
            case "unknown_section" ->
                ". Use a section heading or anchor the file has (read lists its sections;"
                        + " guide shows each file type's). Nothing was written.";
            case "invalid_op", "invalid_request", "spec_violation" ->
                data != null && data.has("field")
                        ? ". Fix what data.field names and call again. Nothing was written."
                        : data != null && data.has("rule")
                                ? ". Fix what data.rule names and call again. Nothing was written."
                                : ". Fix the call as the message says and call again. Nothing was written.";
            case "not_found" ->
                ". Check the path, id or token (search, slices_list, drift_list, proposals_list"
                        + " list what exists). Nothing was written.";
            case "unavailable" ->
                ". The daemon could not do it now; data.recorded says whether anything was" + " recorded. Retry later.";
            case "unknown_method" -> ". The daemon is older than this MCP server: restart it from the same build.";
            default -> ".";
        };
    }
}
