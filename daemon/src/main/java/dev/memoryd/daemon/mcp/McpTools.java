package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.git.HumanActor;
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
 * show which agent wrote what. A client never acts as a person ({@code human:Name <email>}): only
 * {@code --actor}, set by whoever starts the server, can make it one.
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
                    if (m.takes("actor")) {
                        String given = params.path("actor").asText(null);
                        if (HumanActor.is(given) && !given.equals(actor)) {
                            return ToolReplies.error(
                                    "prohibited: an MCP client cannot act as a person ('" + given + "'); only the"
                                            + " person who starts this server as 'memoryd mcp --actor \"human:Name"
                                            + " <email>\"' acts as one here. Nothing was sent.",
                                    Map.of("reason", "prohibited", "field", "actor"));
                        }
                        if (!params.hasNonNull("actor")) {
                            params.put("actor", actor(exchange));
                        }
                    }
                    return ToolReplies.of(link.call(m.name(), params), link);
                })
                .build();
    }

    /**
     * The actor of a call that names none: {@code --actor}, else the client's name, else {@value
     * #UNNAMED}; never a person's unless {@code --actor} says so (a client's name for itself is not
     * who it is, and without an actor the daemon records the root's git identity).
     */
    private String actor(McpSyncServerExchange exchange) {
        if (actor != null) {
            return actor;
        }
        McpSchema.Implementation client = exchange == null ? null : exchange.getClientInfo();
        String name = client == null || client.name() == null || client.name().isBlank() ? UNNAMED : client.name();
        return HumanActor.is(name) ? "mcp:" + name : name;
    }

    /** The actor of a client that gave no name. */
    static final String UNNAMED = "mcp-client";

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
