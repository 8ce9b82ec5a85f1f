package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.catalogue.MethodCatalogue;
import dev.memoryd.daemon.rpc.catalogue.MethodSpec;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The MCP tools: one per catalogue method (its name with {@code _} for {@code .}, its params
 * schema as {@code inputSchema}, its result schema as {@code outputSchema}, its description and
 * flags as annotations), each forwarding to the daemon, plus {@code guide}, which needs none.
 *
 * <p>Parameters pass through unchanged, with one default: a method that takes {@code actor} and
 * is called without one gets {@code --actor}, else the MCP client's name, so history and git log
 * show which agent wrote what.
 */
final class McpTools {
    static final String GUIDE = "guide";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private final DaemonLink link;
    private final String actor;

    McpTools(DaemonLink link, String actor) {
        this.link = link;
        this.actor = actor;
    }

    List<SyncToolSpecification> all(MethodCatalogue catalogue) {
        List<SyncToolSpecification> out = new ArrayList<>();
        out.add(guide());
        for (MethodSpec m : catalogue.methods()) {
            out.add(forward(m));
        }
        return out;
    }

    /** The MCP tool declaration of a catalogue method. */
    static McpSchema.Tool tool(MethodSpec m) {
        return McpSchema.Tool.builder()
                .name(m.toolName())
                .title(m.summary())
                .description(m.description() + " (memoryd method `" + m.name() + "`.)")
                .inputSchema(JSON.convertValue(m.params(), MAP))
                .outputSchema(m.result() == null ? null : JSON.convertValue(m.result(), MAP))
                .annotations(McpSchema.ToolAnnotations.builder()
                        .title(m.summary())
                        .readOnlyHint(m.readOnly())
                        .destructiveHint(!m.readOnly() && m.destructive())
                        .idempotentHint(m.idempotent())
                        .openWorldHint(false)
                        .build())
                .build();
    }

    private SyncToolSpecification forward(MethodSpec m) {
        return SyncToolSpecification.builder()
                .tool(tool(m))
                .callHandler((exchange, req) -> {
                    ObjectNode params = JSON.valueToTree(req.arguments() == null ? Map.of() : req.arguments());
                    String who = actor(exchange);
                    if (m.takes("actor") && !params.hasNonNull("actor") && who != null) {
                        params.put("actor", who);
                    }
                    return ToolReplies.of(link.call(m.name(), params), link);
                })
                .build();
    }

    private String actor(McpSyncServerExchange exchange) {
        if (actor != null) {
            return actor;
        }
        McpSchema.Implementation client = exchange == null ? null : exchange.getClientInfo();
        return client == null || client.name() == null || client.name().isBlank() ? null : client.name();
    }

    private static SyncToolSpecification guide() {
        Map<String, Object> input = new LinkedHashMap<>();
        input.put("type", "object");
        input.put("properties", Map.of());
        input.put("additionalProperties", false);
        McpSchema.Tool tool = McpSchema.Tool.builder()
                .name(GUIDE)
                .title("How memory is organised")
                .description("Returns how memoryd's memory is organised: the file types and their sections, section"
                        + " kinds and caps, evidence tokens, and when to propose instead of write. Call it first when you"
                        + " have no other instructions; it needs no daemon and changes nothing.")
                .inputSchema(input)
                .annotations(McpSchema.ToolAnnotations.builder()
                        .title("How memory is organised")
                        .readOnlyHint(true)
                        .destructiveHint(false)
                        .idempotentHint(true)
                        .openWorldHint(false)
                        .build())
                .build();
        String text = Guide.text();
        return SyncToolSpecification.builder()
                .tool(tool)
                .callHandler((exchange, req) -> McpSchema.CallToolResult.builder()
                        .content(List.of(new McpSchema.TextContent(text)))
                        .isError(false)
                        .build())
                .build();
    }
}
