package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A revision ({@code at}) that nothing can be named: over-long parts, in one or several
 * components, in ASCII or not. It is not found, as any unknown revision, and leaves nothing in
 * the daemon's log: JGit, asked to look one up, logged a SEVERE stack trace for every ref
 * directory it tried, so any client could fill the log with a few requests.
 */
class RevisionLookupTest {
    private static final String OVERVIEW = "users/sam/overview.md";

    @TempDir
    Path tmp;

    @Test
    void aRevisionWithAPartLongerThanAFileName_isNotFound_andLogsNothing() throws Exception {
        try (TestRoot r = new TestRoot(tmp)) {
            r.serve();
            List<String> revisions = List.of(
                    "z".repeat(300),
                    "refs/heads/" + "y".repeat(256),
                    "é".repeat(128), // 256 bytes in UTF-8
                    "main/" + "x".repeat(1000) + "/more");
            try (LogCapture w = new LogCapture(Level.WARNING)) {
                for (String at : revisions) {
                    JsonNode read = r.call("read", "{\"path\":\"" + OVERVIEW + "\",\"at\":\"" + at + "\"}");
                    assertEquals("not_found", reason(read), read.toString());
                    JsonNode search = r.call("search", "{\"q\":\"Sam\",\"at\":\"" + at + "\"}");
                    assertEquals("not_found", reason(search), search.toString());
                }
                assertEquals(List.of(), w.seen(), "nothing logged for a client's unknown revision");
            }
            String head = r.git("rev-parse", "HEAD").strip();
            JsonNode atHead = r.call("read", "{\"path\":\"" + OVERVIEW + "\",\"at\":\"" + head + "\"}");
            assertTrue(atHead.has("result"), atHead.toString());
            assertEquals(head, atHead.get("result").get("commit").asText());
            JsonNode atName = r.call("read", "{\"path\":\"" + OVERVIEW + "\",\"at\":\"main\"}");
            assertEquals(head, atName.get("result").get("commit").asText(), atName.toString());
        }
    }

    private static String reason(JsonNode reply) {
        return reply.path("error").path("data").path("reason").asText();
    }
}
