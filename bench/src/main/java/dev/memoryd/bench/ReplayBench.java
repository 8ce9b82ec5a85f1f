package dev.memoryd.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code bench --mode replay}: builds a ledger of {@code events} events through the daemon
 * (10-op declarations over {@code parts} parts' notes, with a human's save every 50
 * declarations), then times {@code replay --verify} in the daemon (best of three).
 */
record ReplayBench(int events, int parts) implements Scenario {

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            Requests.check(c.call("write", Requests.decl("bench-setup", Requests.createOps(parts))));
            int decls = 0;
            long written = parts + 1;
            long humans = 0;
            while (written < events) {
                ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
                for (int k = 0; k < 10; k++) {
                    ObjectNode o = ops.addObject();
                    o.put("op", "append_item");
                    o.put("path", "users/bench/parts/part-" + (decls % parts) + "/notes.md");
                    o.put("section", "Inbox");
                    o.put("item", "note " + decls + "." + k);
                }
                Requests.check(c.call("write", Requests.decl("replay-bench", ops)));
                written += 10;
                if (++decls % 50 == 0) {
                    Path f = cfg.root().resolve("users/bench/parts/part-" + (decls % parts) + "/profile.md");
                    String t = Files.readString(f);
                    int at = t.indexOf("<!-- @anchor: concerns v1 -->\n") + "<!-- @anchor: concerns v1 -->\n".length();
                    Files.writeString(f, t.substring(0, at) + "\nA human note " + decls + ".\n" + t.substring(at));
                    JsonNode r = c.call(
                            "capture",
                            JsonRpc.MAPPER
                                    .createObjectNode()
                                    .set(
                                            "paths",
                                            JsonRpc.MAPPER
                                                    .createArrayNode()
                                                    .add(cfg.root()
                                                            .relativize(f)
                                                            .toString())));
                    Requests.check(r);
                    written++;
                    humans++;
                }
            }
            out.put("mode", "replay");
            out.put("parts", parts);
            out.put("events_built", written);
            out.put("human_edits", humans);
            double best = Double.MAX_VALUE;
            JsonNode last = null;
            for (int i = 0; i < 3; i++) {
                long t = System.nanoTime();
                last = c.call("replay", JsonRpc.MAPPER.createObjectNode().put("verify", true));
                best = Math.min(best, (System.nanoTime() - t) / 1e9);
                Requests.check(last);
            }
            out.put("replay_ok", last.get("result").get("ok").asBoolean());
            out.put("replayed_events", last.get("result").get("events").asLong());
            out.put("replay_s", Stats.round(best));
            out.put("events_per_s", Stats.round(last.get("result").get("events").asLong() / best));
        }
    }
}
