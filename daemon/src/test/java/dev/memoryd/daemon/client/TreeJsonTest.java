package dev.memoryd.daemon.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TreeJson} reads and prints trees exactly as an {@code ObjectMapper} does. */
class TreeJsonTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static final List<String> SAMPLES = List.of(
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"version\":\"0.1.0\",\"head\":null,\"peers\":[],\"stats\":{}}}",
            "{\"a\":[1,-2,2147483648,-9223372036854775808,123456789012345678901234567890],\"b\":[1.5,-0.0,1e300,2.5E-7]}",
            "{\"text\":\"line\\nnext \\\"quoted\\\" \\\\ tab\\t \\u00e9t\\u00e9 \\ud83d\\ude00 \\u0001\",\"ok\":true,\"no\":false}",
            "[{\"nested\":[[],[{}],{\"x\":[null]}]},\"s\",3]",
            "{\"dup\":1,\"dup\":2}",
            "\"just a string\"",
            "42");

    @Test
    void readingGivesTheTreeReadTreeGives_numbersOfTheSameKinds() throws IOException {
        for (String s : SAMPLES) {
            JsonNode ours = TreeJson.read(s);
            JsonNode theirs = MAPPER.readTree(s);
            assertEquals(theirs, ours, s);
            assertEquals(theirs.toString(), ours.toString(), s);
        }
        JsonNode big = TreeJson.read("[2147483647,2147483648,9223372036854775808,0.1]");
        assertTrue(big.get(0).isInt()
                && big.get(1).isLong()
                && big.get(2).isBigInteger()
                && big.get(3).isDouble());
        assertTrue(TreeJson.read("  ").isMissingNode(), "blank text is no document, as readTree has it");
    }

    @Test
    void printingGivesTheTextOfTheMappersWriters_oneLineAndIndented() throws IOException {
        for (String s : SAMPLES) {
            JsonNode n = MAPPER.readTree(s);
            assertEquals(MAPPER.writeValueAsString(n), TreeJson.write(n), s);
            assertEquals(MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(n), TreeJson.pretty(n), s);
        }
    }

    @Test
    void textThatIsNotJson_isAnError() {
        assertThrows(IOException.class, () -> TreeJson.read("{\"a\":"));
        assertThrows(IOException.class, () -> TreeJson.read("{\"a\" 1}"));
    }
}
