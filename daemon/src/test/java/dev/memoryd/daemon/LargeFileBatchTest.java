package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long batch of declarations on one large file, in a daemon child process with a small heap:
 * the writer keeps each version of the file until its commit is built, and the grammar the latest
 * 128 parses, so a batch of 256 appends to a 1 MB file held over 256 MB and the writer ran out of
 * memory, refusing every write after it until a restart. A batch now stops taking declarations
 * once it holds a bounded amount of text, and the parses kept are bounded by their text too.
 */
@Timeout(300)
class LargeFileBatchTest {
    private static final String NOTES = "users/sam/notes.md";

    @TempDir
    Path tmp;

    private DaemonProcess daemon;

    @AfterEach
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    private static ObjectNode importOf(int from, int count, String text) {
        ObjectNode p = JsonRpc.MAPPER
                .createObjectNode()
                .put("user", "sam")
                .put("override_rationale", "a large notes file on purpose");
        ArrayNode notes = p.putArray("notes");
        for (int i = from; i < from + count; i++) {
            notes.addObject().put("name", String.format("note-%04d", i)).put("text", text + " " + i + ".\n");
        }
        return p;
    }

    /** Imports {@code count} notes in one request; the number recorded. */
    private int importNotes(SocketClient c, int from, int count, String text) throws Exception {
        JsonNode r = c.call("notes.import", importOf(from, count, text));
        assertTrue(r.has("result"), r + "\n" + daemon.logTail(40));
        return r.at("/result/imported").asInt();
    }

    @Test
    void hundredsOfAppendsToAOneMegabyteFile_inA128MegabyteHeap_areEachRecorded_andTheWriterStaysUp() throws Exception {
        TestRoot root = new TestRoot(tmp);
        daemon = DaemonProcess.start(List.of("-Xmx128m"), root.cfg, tmp.resolve("daemon.log"));
        daemon.awaitImported();
        String page = "A paragraph of a long journal kept in one file, written over years. ".repeat(700);
        try (SocketClient c = daemon.client()) {
            for (int part = 0; part < 4; part++) {
                assertEquals(5, importNotes(c, part * 5, 5, page), "the file grows to about 1 MB first");
            }
            String head = root.git("rev-parse", "HEAD").strip();
            assertEquals(300, importNotes(c, 100, 300, "a short note"), daemon.logTail(40));
            assertEquals("300", root.git("rev-list", "--count", head + "..HEAD").strip(), "one commit per note");
        }
        String text = root.file(NOTES);
        assertTrue(text.length() > 900_000, "the file is large: " + text.length());
        int at = -1;
        for (int i = 100; i < 400; i++) {
            int next = text.indexOf("### note-" + String.format("%04d", i) + "\na short note " + i + ".");
            assertTrue(next > at, "note " + i + " recorded, after the one before it");
            at = next;
        }
        assertTrue(daemon.isAlive());
        JsonNode after = daemon.result(
                "write",
                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + WriteEndToEndTest.CRITIC
                        + "\",\"section\":\"Open Questions\",\"item\":\"still writing\"}]}");
        assertTrue(after.get("commit").isTextual(), after.toString());
        assertTrue(daemon.result("ledger.verify", null).get("ok").asBoolean());
    }
}
