package dev.memoryd.daemon.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link DrainingStdio}'s counting of requests and replies as the bytes pass through. */
class McpStdioCountingTest {
    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void requestsAndReplies_areCountedPerLine_evenWhenALineArrivesInPieces() throws IOException {
        String inbound = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"read\"}}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"id\":9}}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"ping\"}\n";
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        DrainingStdio stdio = new DrainingStdio(new ByteArrayInputStream(utf8(inbound)), written);
        InputStream in = stdio.in();
        byte[] buf = new byte[7]; // lines split across reads
        StringBuilder passed = new StringBuilder();
        int read = 0;
        while (read < inbound.length()) {
            int n = in.read(buf, 0, buf.length);
            passed.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            read += n;
        }
        assertEquals(inbound, passed.toString(), "the bytes pass through unchanged");
        assertEquals(2, stdio.unanswered(), "two requests (a notification is not one)");

        OutputStream out = stdio.out();
        byte[] reply = utf8("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\"}],"
                + "\"structuredContent\":{\"method\":\"x\",\"error\":null}}}\n");
        out.write(reply, 0, 10);
        out.write(reply, 10, reply.length - 10);
        assertEquals(1, stdio.unanswered(), "a result answers one");
        out.write(utf8("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{}}\n"));
        assertEquals(1, stdio.unanswered(), "a notification answers nothing");
        out.write(utf8("{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"error\":{\"code\":-32601,\"message\":\"no\"}}\n"));
        assertEquals(0, stdio.unanswered(), "an error answers one");
        assertTrue(written.toString(StandardCharsets.UTF_8).startsWith("{\"jsonrpc\":\"2.0\",\"id\":1,"));
        assertEquals(-1, in.read(buf, 0, buf.length), "with every request answered the end passes at once");
    }

    @Test
    void theInitializedNotification_runsTheCallbackWhenRead_andAMethodNamedInsideParamsDoesNot() throws IOException {
        String inbound =
                "{\"jsonrpc\":\"2.0\",\"method\":\"other\",\"params\":{\"method\":\"notifications/initialized\"}}\n"
                        + "not json at all\n"
                        + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
        DrainingStdio stdio = new DrainingStdio(new ByteArrayInputStream(utf8(inbound)), new ByteArrayOutputStream());
        AtomicInteger runs = new AtomicInteger();
        stdio.onInitialized(runs::incrementAndGet);
        InputStream in = stdio.in();
        int firstTwo = inbound.indexOf("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        assertEquals(firstTwo, in.readNBytes(firstTwo).length);
        assertEquals(0, runs.get(), "not before the notification is read");
        in.readAllBytes();
        assertEquals(1, runs.get());
        assertEquals(0, stdio.unanswered());
    }
}
