package dev.memoryd.daemon.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.DaemonReply;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * What a refused tool call tells the model to do next: it pointed at a {@code data.field} the
 * error did not carry ("missing parameter 'path'. Fix what data.field names"), told an agent
 * refused a person's decision that "memoryd never does this", sent a write refused over a
 * dismissed drift text to a drift queue with no item, and doubled the message's full stop.
 */
class ToolRepliesTest {
    private static final DaemonLink LINK = new DaemonLink(Path.of("/r"), Path.of("/r/.memoryd/memoryd.sock"));

    private static String text(String reason, String message, ObjectNode data) {
        data.put("reason", reason);
        McpSchema.CallToolResult r = ToolReplies.of(new DaemonReply.Refused(reason, message, data), LINK);
        assertTrue(r.isError());
        return ((McpSchema.TextContent) r.content().get(0)).text();
    }

    private static ObjectNode data() {
        return JsonNodeFactory.instance.objectNode();
    }

    @Test
    void aRefusalsNextStep_namesOnlyWhatItsDataCarries() {
        String noField = text("invalid_request", "missing parameter 'path'", data());
        assertFalse(noField.contains("data.field"), noField);
        assertTrue(noField.contains("Fix the call as the message says"), noField);
        String field = text("invalid_request", "bad", data().put("field", "params.path"));
        assertTrue(field.contains("Fix what data.field names"), field);

        String person = text("prohibited", "only a person accepts a proposal: actor must be a human's", data());
        assertFalse(person.contains("memoryd never does this"), person);

        String dismissed =
                text("drift", "users/a.md holds a human's edit ... dismissed", data().put("path", "users/a.md"));
        assertFalse(dismissed.contains("data.drift_id"), dismissed);
        String queued = text("drift", "users/a.md waits in the drift queue", data().put("drift_id", "01X"));
        assertTrue(queued.contains("data.drift_id"), queued);

        String stop = text("invalid_request", "not valid JSON at line 1, column 3.", data());
        assertFalse(stop.contains(".."), stop);
        assertEquals(1, stop.split("column 3\\.", -1).length - 1, stop);
    }
}
