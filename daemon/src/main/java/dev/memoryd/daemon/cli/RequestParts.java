package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A JSON array cut into consecutive parts, in order, each small enough for one request: the
 * elements' bytes as the socket client sends them, with their commas, stay within a budget. An
 * element that alone is over the budget cannot be sent in any part. Immutable.
 *
 * @param parts the parts, in the array's order; empty for an empty array
 */
record RequestParts(List<ArrayNode> parts) {
    RequestParts {
        parts = List.copyOf(parts);
    }

    /** An element over the budget on its own: its index in the array and its bytes. */
    static final class TooLarge extends Exception {
        final int index;
        final int bytes;

        TooLarge(int index, int bytes, int budget) {
            super("element " + index + " is " + bytes + " bytes as JSON, more than one request carries (" + budget
                    + ")");
            this.index = index;
            this.bytes = bytes;
        }
    }

    /** {@code items} cut into parts of at most {@code budget} bytes of elements each. */
    static RequestParts of(JsonNode items, int budget) throws TooLarge, IOException {
        List<ArrayNode> parts = new ArrayList<>();
        ArrayNode part = JsonNodeFactory.instance.arrayNode();
        long used = 0;
        for (int i = 0; i < items.size(); i++) {
            JsonNode e = items.get(i);
            int size = SocketClient.wireBytes(e) + 1; // and its comma
            if (size > budget) {
                throw new TooLarge(i, size - 1, budget);
            }
            if (!part.isEmpty() && used + size > budget) {
                parts.add(part);
                part = JsonNodeFactory.instance.arrayNode();
                used = 0;
            }
            part.add(e);
            used += size;
        }
        if (!part.isEmpty()) {
            parts.add(part);
        }
        return new RequestParts(parts);
    }
}
