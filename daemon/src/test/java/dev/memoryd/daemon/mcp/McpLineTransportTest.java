package dev.memoryd.daemon.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LineTransport} under the real shim ({@link McpCommand#start}) with no daemon behind it:
 * what is read, what is answered and when.
 */
class McpLineTransportTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

    private static McpCommand.Shim shim(Path dir, InputStream in, ByteArrayOutputStream out) {
        DaemonLink link = new DaemonLink(dir, dir.resolve("no-daemon.sock"));
        return McpCommand.start(link, null, in, out, 60_000);
    }

    private static InputStream stdin(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    private static List<JsonNode> lines(ByteArrayOutputStream out) throws IOException {
        List<JsonNode> l = new ArrayList<>();
        for (String s : out.toString(StandardCharsets.UTF_8).split("\n", -1)) {
            if (!s.isEmpty()) {
                l.add(JSON.readTree(s));
            }
        }
        assertTrue(out.toString(StandardCharsets.UTF_8).endsWith("\n"), "every message ends its line");
        return l;
    }

    /** Serves {@code in} to its end on a shim with no daemon behind it: the replies, in order. */
    private static List<JsonNode> served(Path dir, String in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        McpCommand.Shim s = shim(dir, stdin(in), out);
        try {
            s.transport().serve();
            return lines(out);
        } finally {
            s.watch().close();
        }
    }

    @Test
    void whenStdinEnds_everyRequestHasItsReply_inTheOrderAsked(@TempDir Path dir) throws IOException {
        String in = INIT + "\n" + INITIALIZED + "\r\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/call\",\"params\":{\"name\":\"read\","
                + "\"arguments\":{\"path\":\"users/sam/overview.md\"}}}\r"
                + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"guide\",\"arguments\":{}}}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}"; // the last line has no end
        List<JsonNode> replies = served(dir, in);
        assertEquals(4, replies.size(), replies.toString());
        assertEquals("memoryd", replies.get(0).at("/result/serverInfo/name").asText(), replies.toString());
        assertEquals("b", replies.get(1).path("id").asText());
        assertTrue(replies.get(1).at("/result/isError").asBoolean(), "no daemon: a tool error");
        assertEquals(
                "unavailable",
                replies.get(1).at("/result/content/0/text").asText().split(":")[0]);
        assertEquals(3, replies.get(2).path("id").asInt());
        assertTrue(replies.get(2).at("/result/content/0/text").asText().contains("Evidence (curated)"));
        assertEquals(4, replies.get(3).path("id").asInt());
        assertTrue(replies.get(3).has("result"), replies.get(3).toString());
    }

    @Test
    void aLineThatIsNotJsonRpc_isAnsweredWithJsonRpcsError_andTheNextRequestIsAnswered(@TempDir Path dir)
            throws IOException {
        String in = INIT + "\n" + INITIALIZED + "\n" + "not json at all\n\n" + "[1,2]\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":7,\"params\":{}}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/list\",}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":{\"not\":\"an id\"}}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
        List<JsonNode> replies = served(dir, in);
        assertEquals(7, replies.size(), replies.toString());
        // id, code: the blank line has no reply; a line that is not JSON has no id to give back.
        int[][] expected = {{0, -32700}, {0, -32600}, {7, -32600}, {0, -32700}, {0, -32600}};
        for (int i = 0; i < expected.length; i++) {
            JsonNode r = replies.get(i + 1);
            assertEquals("2.0", r.path("jsonrpc").asText(), r.toString());
            assertEquals(expected[i][0] == 0, r.get("id").isNull(), r.toString());
            if (expected[i][0] != 0) {
                assertEquals(expected[i][0], r.get("id").asInt(), r.toString());
            }
            assertEquals(expected[i][1], r.at("/error/code").asInt(), r.toString());
            assertTrue(!r.has("result"), r.toString());
        }
        assertEquals(2, replies.get(6).path("id").asInt());
        assertTrue(replies.get(6).has("result"), replies.get(6).toString());
    }

    /** The SDK answered a request of another JSON-RPC version (or none) as if it were 2.0. */
    @Test
    void aMessageThatIsNotJsonRpc2_isInvalidRequestWithItsId_andANotificationIsNotHandled(@TempDir Path dir)
            throws IOException {
        String in = INIT + "\n" + INITIALIZED + "\n"
                + "{\"jsonrpc\":\"1.0\",\"id\":10,\"method\":\"tools/list\"}\n"
                + "{\"id\":11,\"method\":\"tools/list\"}\n"
                + "{\"jsonrpc\":\"2.1\",\"id\":\"twelve\",\"method\":\"ping\"}\n"
                + "{\"jsonrpc\":\"1.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
        List<JsonNode> replies = served(dir, in);
        assertEquals(5, replies.size(), replies.toString()); // initialize, three refusals, the ping
        String[] ids = {"10", "11", "twelve"};
        String[] said = {
            "\"jsonrpc\" must be \"2.0\", not \"1.0\"", "not a JSON-RPC 2.0", "must be \"2.0\", not \"2.1\""
        };
        for (int i = 0; i < ids.length; i++) {
            JsonNode r = replies.get(i + 1);
            assertEquals(ids[i], r.path("id").asText(), r.toString());
            assertEquals(-32600, r.at("/error/code").asInt(), r.toString());
            assertTrue(r.at("/error/message").asText().contains(said[i]), r.toString());
            assertFalse(r.has("result"), r.toString());
        }
        assertEquals(2, replies.get(4).path("id").asInt(), replies.get(4).toString());
        assertTrue(replies.get(4).has("result"), replies.get(4).toString());
    }

    /**
     * A client naming a person as the actor of a call (or as its own name) was recorded as that
     * person, and passed the checks only a person passes (locking sections, accepting proposals).
     */
    @Test
    void aClientCannotActAsAPerson_theCallIsRefusedBeforeItIsSent(@TempDir Path dir) throws IOException {
        String in = INIT + "\n" + INITIALIZED + "\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"proposals_accept\","
                + "\"arguments\":{\"id\":\"01JC7X00000000000000000001\",\"actor\":\"human:Sam <sam@example.com>\"}}}\n";
        List<JsonNode> replies = served(dir, in);
        JsonNode r = replies.get(1);
        assertTrue(r.at("/result/isError").asBoolean(), r.toString());
        String text = r.at("/result/content/0/text").asText();
        assertTrue(text.startsWith("prohibited: an MCP client cannot act as a person"), text);
        assertTrue(text.contains("Nothing was sent"), text);
    }

    @Test
    void resourceRequestsWithoutAUsableUri_areInvalidParams_andSubscribingOutsideMemorydIsRefused(@TempDir Path dir)
            throws IOException {
        String[] bad = {
            "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"resources/read\",\"params\":{}}",
            "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"resources/read\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"resources/read\",\"params\":{\"uri\":7}}",
            "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"file:///etc/passwd\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"resources/subscribe\",\"params\":{}}",
            "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"resources/unsubscribe\",\"params\":{\"uri\":null}}",
            "{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"memoryd://%zz\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"resources/read\",\"params\":[\"memoryd://a.md\"]}",
        };
        String good = "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"resources/subscribe\","
                + "\"params\":{\"uri\":\"memoryd://users/sam/overview.md\"}}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///etc/passwd\"}}\n";
        List<JsonNode> replies = served(dir, INIT + "\n" + INITIALIZED + "\n" + String.join("\n", bad) + "\n" + good);
        assertEquals(1 + bad.length + 2, replies.size(), replies.toString());
        assertInvalidParams(replies.subList(1, 1 + bad.length), i -> "uri");
        JsonNode subscribed = replies.get(bad.length + 1);
        assertEquals(20, subscribed.path("id").asInt(), subscribed.toString());
        assertTrue(subscribed.has("result"), "a memory file's URI may be subscribed to: " + subscribed);
        JsonNode notFound = replies.get(bad.length + 2);
        assertEquals(-32002, notFound.at("/error/code").asInt(), "a URI that names no resource: " + notFound);
    }

    /**
     * Each of {@code replies}, answering requests with ids 10, 11, ..., is JSON-RPC's invalid params
     * whose message names {@code named.apply(i)} and quotes no Java.
     */
    private static void assertInvalidParams(List<JsonNode> replies, java.util.function.IntFunction<String> named) {
        for (int i = 0; i < replies.size(); i++) {
            JsonNode r = replies.get(i);
            assertEquals(10 + i, r.path("id").asInt(), r.toString());
            assertEquals(-32602, r.at("/error/code").asInt(), r.toString());
            String message = r.at("/error/message").asText();
            assertTrue(message.contains(named.apply(i)), r.toString());
            assertFalse(message.contains("java.") || message.contains("Cannot deserialize"), r.toString());
        }
    }

    @Test
    void toolCallsWithoutANameOrWithArgumentsThatAreNoObject_areInvalidParamsNamingWhich(@TempDir Path dir)
            throws IOException {
        String[] bad = {
            "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"arguments\":{}}}",
            "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":7}}",
            "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":{\"name\":\"read\",\"arguments\":[1]}}",
            "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/call\",\"params\":{\"name\":\"read\",\"arguments\":\"a.md\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"tools/call\",\"params\":[\"read\"]}",
        };
        String[] names = {"name", "name", "name", "arguments", "arguments", "name"};
        String good = "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"tools/call\",\"params\":{\"name\":\"guide\"}}\n";
        List<JsonNode> replies = served(dir, INIT + "\n" + INITIALIZED + "\n" + String.join("\n", bad) + "\n" + good);
        assertEquals(1 + bad.length + 1, replies.size(), replies.toString());
        assertInvalidParams(replies.subList(1, 1 + bad.length), i -> "params." + names[i]);
        JsonNode guide = replies.get(bad.length + 1);
        assertEquals(20, guide.path("id").asInt(), guide.toString());
        assertFalse(guide.at("/result/isError").asBoolean(true), "a call with no arguments at all is fine: " + guide);
    }

    @Test
    void aRequestBeforeTheClientIsInitialized_isAnsweredOnceItIs_beforeTheRequestsAfter(@TempDir Path dir)
            throws IOException {
        String in = INIT + "\n" + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n" + INITIALIZED + "\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n";
        List<JsonNode> replies = served(dir, in);
        assertEquals(
                List.of(1, 2, 3),
                replies.stream().map(r -> r.path("id").asInt()).toList(),
                replies.toString());
    }

    @Test
    void theInitializedCallback_runsOnceTheNotificationIsHandled_andNotForAMethodInsideParams(@TempDir Path dir)
            throws IOException {
        String in = INIT + "\n" + "{\"jsonrpc\":\"2.0\",\"method\":\"other\",\"params\":{\"method\":\""
                + "notifications/initialized\"}}\n" + INITIALIZED + "\n";
        McpCommand.Shim s = shim(dir, stdin(in), new ByteArrayOutputStream());
        AtomicInteger runs = new AtomicInteger();
        s.transport().onInitialized(runs::incrementAndGet);
        try {
            s.transport().serve();
            assertEquals(1, runs.get());
        } finally {
            s.watch().close();
        }
    }

    @Test
    void messagesSentTogether_reachStdoutOnlyWhenTheRoundEnds_inTheOrderSent(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        McpCommand.Shim s = shim(dir, stdin(INIT + "\n" + INITIALIZED + "\n"), out);
        try {
            s.transport().serve();
            int before = out.size();
            s.transport().together(() -> {
                for (int i = 0; i < 3; i++) {
                    s.transport()
                            .notifyClients("notifications/message", java.util.Map.of("level", "info", "data", "n" + i))
                            .block();
                    assertEquals(before, out.size(), "held until the round ends");
                }
            });
            List<JsonNode> messages = lines(out);
            assertEquals(
                    List.of("n0", "n1", "n2"),
                    messages.subList(1, 4).stream()
                            .map(m -> m.at("/params/data").asText())
                            .toList());
        } finally {
            s.watch().close();
        }
    }

    @Test
    void notificationsFromAnotherThread_neverSplitAReplysLine(@TempDir Path dir) throws Exception {
        PipedOutputStream client = new PipedOutputStream();
        PipedInputStream in = new PipedInputStream(client, 1 << 16);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        McpCommand.Shim s = shim(dir, in, out);
        Thread serving = new Thread(s.transport()::serve);
        serving.start();
        int pings = 300;
        int notes = 300;
        CountDownLatch go = new CountDownLatch(1);
        Thread notifier = new Thread(() -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                return;
            }
            for (int i = 0; i < notes; i++) {
                s.transport()
                        .notifyClients("notifications/message", java.util.Map.of("level", "info", "data", "n" + i))
                        .block();
            }
        });
        notifier.start();
        try {
            client.write((INIT + "\n" + INITIALIZED + "\n").getBytes(StandardCharsets.UTF_8));
            go.countDown();
            for (int i = 0; i < pings; i++) {
                client.write(("{\"jsonrpc\":\"2.0\",\"id\":" + (100 + i) + ",\"method\":\"ping\"}\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
            notifier.join(TimeUnit.SECONDS.toMillis(30));
            client.close();
            serving.join(TimeUnit.SECONDS.toMillis(30));
            List<JsonNode> messages;
            synchronized (out) {
                messages = lines(out); // every line parses whole
            }
            assertEquals(1 + pings + notes, messages.size());
            int next = 100;
            for (JsonNode m : messages) {
                if (m.has("id") && m.path("id").asInt() >= 100) {
                    assertEquals(next++, m.path("id").asInt(), "replies keep request order");
                }
            }
            assertEquals(100 + pings, next);
        } finally {
            s.watch().close();
        }
    }
}
