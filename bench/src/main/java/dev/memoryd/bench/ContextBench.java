package dev.memoryd.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.time.Instant;
import java.util.Arrays;

/**
 * {@code bench --mode context}: stores a random {@code turns}-turn conversation DAG through
 * {@code conversation.append} ({@code perAppendOpt} turns a call, 0: a 200th of them; each call a
 * new session, or the calls spread over {@code sessions} when it is above 0), then times {@code writes} SlicePolicy {@code context}
 * queries at random anchors after {@code warmup} unmeasured ones (and the first, which builds the
 * in-memory DAG, apart).
 */
record ContextBench(int turns, int perAppendOpt, int sessions, int writes, int warmup, Process daemon)
        implements Scenario {

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        java.util.Random rnd = new java.util.Random(42);
        int perAppend = perAppendOpt > 0 ? perAppendOpt : Math.max(1, turns / 200);
        long tLoad = System.nanoTime();
        double cpu0 = DaemonChild.cpuSeconds(daemon.pid());
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            String[] phases = {"exploration", "debugging", "planning", "consolidation", "synthesis"};
            for (int start = 0; start < turns; start += perAppend) {
                ObjectNode req = JsonRpc.MAPPER.createObjectNode();
                String session = "bench-" + (sessions > 0 ? start / perAppend % sessions : start / perAppend);
                req.put("session_id", session);
                ArrayNode ts = req.putArray("turns");
                for (int i = start; i < Math.min(turns, start + perAppend); i++) {
                    ObjectNode t = ts.addObject();
                    t.put("id", uuid(i));
                    t.put("role", i % 2 == 0 ? "user" : "assistant");
                    t.put("phase", phases[rnd.nextInt(phases.length)]);
                    t.put("salience", rnd.nextInt(1000) / 1000.0);
                    t.put("trajectory_depth", i % 50);
                    t.put("trajectory_sibling_order", rnd.nextInt(4));
                    t.put("trajectory_homogeneity", rnd.nextInt(1000) / 1000.0);
                    t.put("trajectory_temporal", rnd.nextInt(1000) / 1000.0);
                    t.put("trajectory_complexity", rnd.nextInt(5000) / 1000.0);
                    t.put(
                            "created_at",
                            Instant.ofEpochSecond(1_767_225_600L + i).toString());
                    ArrayNode ps = t.putArray("parents");
                    if (i > 0) {
                        ps.addObject()
                                .put("id", uuid(Math.max(0, i - 1 - rnd.nextInt(Math.min(i, 50)))))
                                .put("edge_type", "reply");
                        if (i > 10 && rnd.nextInt(10) == 0) {
                            int second = Math.max(0, i - 1 - rnd.nextInt(Math.min(i, 500)));
                            if (!uuid(second).equals(ps.get(0).get("id").asText())) {
                                ps.addObject().put("id", uuid(second)).put("edge_type", "reference");
                            }
                        }
                    }
                }
                Requests.check(c.call("conversation.append", req));
            }
            double loadSecs = (System.nanoTime() - tLoad) / 1e9;
            out.put("load_daemon_cpu_s", Math.round((DaemonChild.cpuSeconds(daemon.pid()) - cpu0) * 100) / 100.0);
            out.put("turns_per_append", perAppend);
            ObjectNode warm = JsonRpc.MAPPER.createObjectNode().put("anchor_turn_id", uuid(turns / 2));
            long tFirst = System.nanoTime();
            Requests.check(c.call("context", warm)); // builds the in-memory DAG once
            double firstMs = (System.nanoTime() - tFirst) / 1e6;
            for (int i = 0; i < warmup; i++) {
                Requests.check(c.call(
                        "context", JsonRpc.MAPPER.createObjectNode().put("anchor_turn_id", uuid(rnd.nextInt(turns)))));
            }
            long[] lat = new long[writes];
            int selected = 0;
            for (int i = 0; i < writes; i++) {
                ObjectNode q = JsonRpc.MAPPER.createObjectNode().put("anchor_turn_id", uuid(rnd.nextInt(turns)));
                long s = System.nanoTime();
                JsonNode r = c.call("context", q);
                lat[i] = System.nanoTime() - s;
                Requests.check(r);
                selected += r.get("result").get("turns").size();
            }
            Arrays.sort(lat);
            out.put("mode", "context");
            out.put("turns", turns);
            out.put("queries", writes);
            out.put("p50_ms", Stats.ms(Stats.p50(lat)));
            out.put("p99_ms", Stats.ms(Stats.p99(lat)));
            out.put("mean_selected_turns", Stats.round((double) selected / writes));
            out.put("load_s", Stats.round(loadSecs));
            out.put("first_query_ms", Stats.round(firstMs));
        }
    }

    private static String uuid(int i) {
        return String.format("%08x-0000-4000-8000-%012x", i >>> 16, (long) i);
    }
}
