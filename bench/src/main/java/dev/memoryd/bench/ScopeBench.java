package dev.memoryd.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.util.Arrays;

/**
 * {@code bench --mode scope}: declares {@code chunks} chunks (each an instance of one of 100
 * topics and one of 10 kinds, with a body of words) through the daemon, {@code perDeclare} per
 * declaration, then measures over the socket, {@code writes} times after {@code warmup}:
 * {@code scope} of a topic ∩ kind (about 100 chunks; the default page of 50), {@code scope} of one
 * topic (about 1,000 chunks), and {@code search} for a word (about 20 hits).
 */
record ScopeBench(int chunks, int perDeclare, int writes, int warmup) implements Scenario {

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        java.util.Random rnd = new java.util.Random(42);
        int topics = 100;
        int kinds = 10;
        int words = Math.max(1, chunks / 20);
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            ObjectNode setup = JsonRpc.MAPPER.createObjectNode().put("rationale", "bench scopes");
            ArrayNode sc = setup.putArray("chunks");
            for (int t = 0; t < topics; t++) {
                sc.addObject()
                        .put("ref", "t" + t)
                        .put("name", "topic-" + t)
                        .putObject("body")
                        .put("text", "topic " + t);
            }
            for (int k = 0; k < kinds; k++) {
                sc.addObject()
                        .put("ref", "k" + k)
                        .put("name", "kind-" + k)
                        .putObject("body")
                        .put("text", "kind " + k);
            }
            JsonNode created = c.call("declare", setup);
            Requests.check(created);
            String[] ids = new String[topics + kinds];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = created.get("result").get("created").get(i).get("id").asText();
            }
            long tLoad = System.nanoTime();
            long[] declLat = new long[(chunks + perDeclare - 1) / perDeclare];
            for (int start = 0, d = 0; start < chunks; start += perDeclare, d++) {
                ObjectNode req = JsonRpc.MAPPER.createObjectNode().put("rationale", "bench chunks from " + start);
                ArrayNode cs = req.putArray("chunks");
                for (int i = start; i < Math.min(chunks, start + perDeclare); i++) {
                    ObjectNode ch = cs.addObject().put("name", "c" + i);
                    ch.putObject("body")
                            .put(
                                    "text",
                                    "chunk " + i + " about " + word(i % words) + " and " + word(rnd.nextInt(words)))
                            .put("n", i);
                    ArrayNode ps = ch.putArray("placements");
                    ps.addObject().put("scope", ids[i % topics]);
                    ps.addObject().put("scope", ids[topics + (i / topics) % kinds]);
                }
                long s = System.nanoTime();
                Requests.check(c.call("declare", req));
                declLat[d] = System.nanoTime() - s;
            }
            double loadSecs = (System.nanoTime() - tLoad) / 1e9;
            long[] inter = new long[writes];
            long[] single = new long[writes];
            long[] search = new long[writes];
            long returned = 0;
            long hits = 0;
            for (int i = -warmup; i < writes; i++) {
                int t = rnd.nextInt(topics);
                ObjectNode q = JsonRpc.MAPPER.createObjectNode();
                q.putArray("scopes").add(ids[t]).add(ids[topics + rnd.nextInt(kinds)]);
                long s = System.nanoTime();
                JsonNode r = c.call("scope", q);
                long l1 = System.nanoTime() - s;
                Requests.check(r);
                ObjectNode q2 = JsonRpc.MAPPER.createObjectNode();
                q2.putArray("scopes").add("topic-" + t);
                s = System.nanoTime();
                JsonNode r2 = c.call("scope", q2);
                long l2 = System.nanoTime() - s;
                Requests.check(r2);
                ObjectNode q3 = JsonRpc.MAPPER.createObjectNode().put("q", word(rnd.nextInt(words)));
                s = System.nanoTime();
                JsonNode r3 = c.call("search", q3);
                long l3 = System.nanoTime() - s;
                Requests.check(r3);
                if (i >= 0) {
                    inter[i] = l1;
                    single[i] = l2;
                    search[i] = l3;
                    returned += r.get("result").get("counts").get("total").asLong();
                    hits += r3.get("result").get("hits").size();
                }
            }
            Arrays.sort(inter);
            Arrays.sort(single);
            Arrays.sort(search);
            Arrays.sort(declLat);
            out.put("mode", "scope");
            out.put("chunks", chunks);
            out.put("per_declare", perDeclare);
            out.put("queries", writes);
            out.put("load_s", Stats.round(loadSecs));
            out.put("chunks_per_s", Stats.round(chunks / loadSecs));
            out.put("declare_p50_ms", Stats.ms(Stats.p50(declLat)));
            out.put("scope_intersection_p50_ms", Stats.ms(Stats.p50(inter)));
            out.put("scope_intersection_p99_ms", Stats.ms(Stats.p99(inter)));
            out.put("scope_intersection_mean_total", Stats.round((double) returned / writes));
            out.put("scope_single_p50_ms", Stats.ms(Stats.p50(single)));
            out.put("scope_single_p99_ms", Stats.ms(Stats.p99(single)));
            out.put("search_p50_ms", Stats.ms(Stats.p50(search)));
            out.put("search_p99_ms", Stats.ms(Stats.p99(search)));
            out.put("search_mean_hits", Stats.round((double) hits / writes));
        }
    }

    /** A made-up word (letters only, so the analyzer keeps it whole). */
    private static String word(int i) {
        StringBuilder sb = new StringBuilder("z");
        int n = i;
        do {
            sb.append((char) ('a' + n % 26));
            n /= 26;
        } while (n > 0);
        return sb.append("q").toString();
    }
}
