package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** slip.send / slip.recv through the running daemon: order, exactly-once hand-over, restarts. */
class SlipRelayTest extends ServedRootTest {
    static final String SPEC_EXAMPLE = "@a3|f0|c3|S0|d1|T1|gH|kg|q2|t\\\"refactor_auth\\\"#";

    private JsonNode send(String messageJson) throws Exception {
        return root.call("slip.send", "{\"message\":" + messageJson + "}");
    }

    private static String msg(long turn, long dst) {
        return "{\"conv_id\":3,\"turn\":" + turn + ",\"src\":0,\"dst\":" + dst
                + ",\"act\":\"INFORM\",\"frame\":\"OBSERVATION\",\"slots\":{\"STATUS\":\"turn " + turn + "\"}}";
    }

    private JsonNode recv(long agent, int waitMs) throws Exception {
        return root.call("slip.recv", "{\"agent\":" + agent + ",\"wait_ms\":" + waitMs + "}")
                .get("result");
    }

    @Test
    void sendNslipAndJson_recvReturnsThemOnceInSendOrder() throws Exception {
        JsonNode a = send("\"" + SPEC_EXAMPLE + "\"").get("result");
        assertEquals(
                "@a3|f0|c3|S0|d1|T1|gH|kg|q2|t\"refactor_auth\"#",
                a.get("nslip").asText());
        send(msg(2, 1));
        send(msg(3, 1));
        send(msg(9, 2)); // another agent's
        JsonNode got = recv(1, 0);
        assertEquals(3, got.get("messages").size(), got.toString());
        assertEquals("REQUEST", got.get("messages").get(0).get("act").asText());
        assertEquals(17, got.get("messages").get(0).get("slots").get("GOAL_ID").asInt());
        assertEquals(a.get("event_id"), got.get("messages").get(0).get("event_id"));
        assertEquals(2, got.get("messages").get(1).get("turn").asInt());
        assertEquals(3, got.get("messages").get(2).get("turn").asInt());
        assertEquals(0, recv(1, 0).get("messages").size(), "delivered twice");
        assertEquals(1, recv(2, 0).get("messages").size());
        JsonNode v = root.call("ledger.verify", null).get("result");
        assertTrue(v.get("ok").asBoolean());
        assertEquals(
                TestRoot.IMPORT_LINES + 6, v.get("lines").asInt(), "4 sends + 2 non-empty deliveries, one event each");
    }

    @Test
    void recvWaits_forAMessageSentLater() throws Exception {
        Thread sender = new Thread(() -> {
            try {
                Thread.sleep(300);
                send(msg(1, 5));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        sender.start();
        long t0 = System.nanoTime();
        JsonNode got = recv(5, 10_000);
        sender.join();
        assertEquals(1, got.get("messages").size(), got.toString());
        assertTrue(System.nanoTime() - t0 < 9_000_000_000L, "long poll did not wake on arrival");
    }

    @Test
    void deliveryState_survivesRestart() throws Exception {
        for (int i = 1; i <= 4; i++) {
            send(msg(i, 7));
        }
        assertEquals(
                2,
                root.call("slip.recv", "{\"agent\":7,\"max\":2}")
                        .get("result")
                        .get("messages")
                        .size());
        send(msg(5, 7));
        root.daemon.close();
        root.serve();
        JsonNode got = recv(7, 0);
        assertEquals(3, got.get("messages").size(), got.toString());
        assertEquals(3, got.get("messages").get(0).get("turn").asInt());
        assertEquals(5, got.get("messages").get(2).get("turn").asInt());
        assertTrue(PayloadLines.assertTyped(root.dir) > 0, "every line recorded, read back typed, parses");
    }

    @Test
    void concurrentReceivers_ofOneAgent_neverGetTheSameMessage() throws Exception {
        for (int i = 1; i <= 60; i++) {
            send(msg(i, 9));
        }
        ExecutorService ex = Executors.newFixedThreadPool(4);
        List<Future<Set<String>>> fs = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
            fs.add(ex.submit(() -> {
                Set<String> mine = new HashSet<>();
                try (SocketClient c = root.client()) {
                    for (int k = 0; k < 10; k++) {
                        JsonNode r = c.call("slip.recv", TestRoot.json("{\"agent\":9,\"max\":3}"))
                                .get("result");
                        r.get("messages")
                                .forEach(m -> mine.add(m.get("event_id").asText()));
                    }
                }
                return mine;
            }));
        }
        Set<String> all = new HashSet<>();
        int total = 0;
        for (Future<Set<String>> f : fs) {
            Set<String> s = f.get();
            total += s.size();
            all.addAll(s);
        }
        ex.shutdown();
        assertEquals(total, all.size(), "a message was delivered twice");
        assertEquals(60, all.size());
    }

    @Test
    void malformedMessages_getPreciseErrors_andRecordNothing() throws Exception {
        JsonNode r = send("\"@a3|f0|c3|S0|d1|T1|g!#\"");
        assertEquals("invalid_request", r.get("error").get("data").get("reason").asText(), r.toString());
        assertEquals("bad_base62", r.get("error").get("data").get("slip_reason").asText());
        assertEquals(20, r.get("error").get("data").get("position").asInt(), r.toString());
        JsonNode j = send(
                "{\"conv_id\":1,\"turn\":1,\"src\":0,\"dst\":1,\"act\":\"SHOUT\",\"frame\":\"TASK\",\"slots\":{}}");
        assertEquals("message.act", j.get("error").get("data").get("field").asText(), j.toString());
        JsonNode n = root.call("slip.send", "{\"message\":42}");
        assertEquals("invalid_request", n.get("error").get("data").get("reason").asText());
        JsonNode v = root.call("ledger.verify", null).get("result");
        assertEquals(TestRoot.IMPORT_LINES, v.get("lines").asInt(), "a refused message left a ledger line");
    }
}
