package dev.memoryd.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code bench --mode slip}: {@code clients} senders send {@code writes} SLIP messages in all to
 * as many agents (at least one); one receiver per agent long-polls {@code slip.recv}. Reports the
 * relay's throughput and the send latency.
 */
record SlipBench(int clients, int writes) implements Scenario {

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        int agents = Math.max(1, clients);
        long[] lat = new long[writes];
        java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();
        ExecutorService ex = Executors.newFixedThreadPool(clients + agents);
        List<Future<?>> fs = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int a = 0; a < agents; a++) {
            final int agent = a;
            fs.add(ex.submit(() -> {
                try (SocketClient c = SocketClient.connect(cfg.socket())) {
                    int mine = writes / agents + (agent < writes % agents ? 1 : 0);
                    int got = 0;
                    while (got < mine) {
                        ObjectNode p = JsonRpc.MAPPER
                                .createObjectNode()
                                .put("agent", 1000 + agent)
                                .put("wait_ms", 2000)
                                .put("max", 1000);
                        JsonNode r = c.call("slip.recv", p);
                        Requests.check(r);
                        got += r.get("result").get("messages").size();
                    }
                    received.addAndGet(got);
                }
                return null;
            }));
        }
        for (int t = 0; t < clients; t++) {
            final int sender = t;
            fs.add(ex.submit(() -> {
                try (SocketClient c = SocketClient.connect(cfg.socket())) {
                    for (int i = sender; i < writes; i += clients) {
                        ObjectNode p = JsonRpc.MAPPER.createObjectNode();
                        p.put(
                                "message",
                                "@a1|f2|c1|S1|d"
                                        + dev.memoryd.grammar.slip.Base62.encode(1000 + i % agents) + "|T"
                                        + dev.memoryd.grammar.slip.Base62.encode(i) + "|u\"bench\"#");
                        long s = System.nanoTime();
                        Requests.check(c.call("slip.send", p));
                        lat[i] = System.nanoTime() - s;
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        ex.shutdown();
        Arrays.sort(lat);
        out.put("mode", "slip");
        out.put("messages", writes);
        out.put("senders", clients);
        out.put("receivers", agents);
        out.put("delivered", received.get());
        out.put("messages_per_s", Stats.round(writes / secs));
        out.put("send_p50_ms", Stats.ms(Stats.p50(lat)));
        out.put("send_p99_ms", Stats.ms(Stats.p99(lat)));
    }
}
