package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memoryd import} whose later part fails as a whole (the writer stopped, say) after earlier
 * parts were recorded: the command says how many notes were imported and which, and how many were
 * not, rather than only the error, after which a person would import everything again.
 */
class ImportPartFailureTest {
    @TempDir
    Path tmp;

    MemorydConfig cfg;
    ServerSocketChannel server;
    final AtomicInteger calls = new AtomicInteger();
    /** After the first call: refuse each later one as unavailable, or close the connection unanswered. */
    volatile boolean hangUp;

    @BeforeEach
    void up() throws Exception {
        cfg = MemorydConfig.defaults(tmp.resolve("memory"), tmp.resolve("ledger.key"));
        server = TestRoot.boundInPlaceOfADaemon(cfg);
        Thread t = new Thread(this::answer);
        t.setDaemon(true);
        t.start();
    }

    @AfterEach
    void down() throws Exception {
        server.close();
    }

    /** Takes the first notes.import call; refuses every later one as unavailable, or hangs up on it. */
    private void answer() {
        while (server.isOpen()) {
            serve();
        }
    }

    private void serve() {
        try (SocketChannel ch = server.accept()) {
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                JsonNode req = JsonRpc.MAPPER.readTree(line);
                ObjectNode reply = JsonRpc.MAPPER.createObjectNode().put("jsonrpc", "2.0");
                reply.set("id", req.get("id"));
                if (calls.incrementAndGet() == 1) {
                    ArrayNode results = reply.putObject("result").putArray("results");
                    int i = 0;
                    for (JsonNode n : req.get("params").get("notes")) {
                        results.addObject()
                                .put("name", n.get("name").asText())
                                .put("commit", String.format("%040x", ++i))
                                .put("token", "ev:" + i);
                    }
                    ((ObjectNode) reply.get("result")).put("imported", i).put("refused", 0);
                } else if (hangUp) {
                    return;
                } else {
                    ObjectNode e =
                            reply.putObject("error").put("code", -32000).put("message", "the writer has stopped");
                    e.putObject("data").put("reason", "unavailable");
                }
                ByteBuffer b = ByteBuffer.wrap(
                        (JsonRpc.MAPPER.writeValueAsString(reply) + "\n").getBytes(StandardCharsets.UTF_8));
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            }
        } catch (java.io.IOException e) {
            // the test closed the server
        }
    }

    /** 700 notes, two parts (500 and 200), imported by the CLI with {@code more} options. */
    private Cli.Run importSevenHundred(String... more) throws Exception {
        Path notes = tmp.resolve("notes");
        if (!Files.isDirectory(notes)) {
            Files.createDirectories(notes);
            for (int i = 0; i < 700; i++) {
                Files.writeString(notes.resolve(String.format("n%04d.md", i)), "note " + i + "\n");
            }
        }
        List<String> args = new ArrayList<>(List.of(
                "import",
                notes.toString(),
                "--root",
                cfg.root().toString(),
                "--key-file",
                cfg.keyFile().toString(),
                "--user",
                "sam"));
        args.addAll(List.of(more));
        return Cli.run(args.toArray(String[]::new));
    }

    @Test
    void aPartFailingAfterOthersWereRecorded_isReportedWithWhatWasImported() throws Exception {
        Cli.Run r = importSevenHundred("--json");
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("unavailable: the writer has stopped"), r.toString());
        JsonNode summary = JsonRpc.MAPPER.readTree(r.out());
        assertEquals(700, summary.get("files").asInt(), r.out());
        assertEquals(500, summary.get("imported").asInt(), r.out());
        assertEquals(0, summary.get("refused").asInt(), r.out());
        assertEquals(200, summary.get("failed").get("notes").asInt(), r.out());
        assertEquals("unavailable", summary.get("failed").get("reason").asText(), r.out());
        assertEquals(500, summary.get("results").size(), r.out());
        assertEquals("n0000", summary.get("results").get(0).get("name").asText());
        assertEquals("n0499", summary.get("results").get(499).get("name").asText());

        Cli.Run text = importSevenHundred(); // every call refused now
        assertEquals(1, text.code(), text.toString());
        assertTrue(
                text.out().contains("imported 0 of 700 notes") && text.out().contains("not imported 700"),
                text.toString());
    }

    @Test
    void aConnectionLostAfterAPartWasRecorded_isReportedWithWhatWasImported_andWhatMayBe() throws Exception {
        hangUp = true;
        Cli.Run r = importSevenHundred("--json");
        assertEquals(1, r.code(), r.toString());
        JsonNode summary = JsonRpc.MAPPER.readTree(r.out());
        assertEquals(500, summary.get("imported").asInt(), r.out());
        assertEquals(200, summary.get("failed").get("notes").asInt(), r.out());
        assertEquals("unavailable", summary.get("failed").get("reason").asText(), r.out());
        assertTrue(summary.get("failed").get("message").asText().contains("may be recorded"), r.out());
        assertTrue(r.err().contains("the connection to the daemon failed"), r.toString());
    }
}
