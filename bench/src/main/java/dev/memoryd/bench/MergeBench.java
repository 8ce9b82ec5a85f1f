package dev.memoryd.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;

/**
 * {@code bench --mode merge}: a user with two parts, a branch {@code feature} forked from the
 * checked-out branch, then {@code writes} declarations on each side (closed loop, one client per
 * side, run at the same time): the checked-out branch alternates the overview's Current Focus and
 * part-0's Role, the feature branch appends to the overview's Open Questions and replaces part-1's
 * Role. So the merge is clean per section but not per file (the overview changed on both sides,
 * with both sides' {@code last_updated} and Change Log lines). Times {@code branch.merge} over the
 * socket, then checks {@code ledger.verify} and {@code replay --verify}.
 */
record MergeBench(int writes) implements Scenario {

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            Requests.check(c.call("write", Requests.decl("bench", Requests.createOps(2))));
            Requests.check(
                    c.call("branch.create", JsonRpc.MAPPER.createObjectNode().put("name", "feature")));
        }
        long t0 = System.nanoTime();
        Thread side = new Thread(() -> drive(cfg, writes, "feature"), "bench-feature");
        Throwable[] failed = new Throwable[1];
        side.setUncaughtExceptionHandler((t, e) -> failed[0] = e);
        side.start();
        drive(cfg, writes, null);
        side.join();
        if (failed[0] != null) {
            throw new IOException("the feature branch's writes failed: " + failed[0], failed[0]);
        }
        out.put("writes_per_branch", writes);
        out.put("write_seconds", Math.round((System.nanoTime() - t0) / 1e7) / 100.0);
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            long m0 = System.nanoTime();
            JsonNode r =
                    c.call("branch.merge", JsonRpc.MAPPER.createObjectNode().put("from", "feature"));
            long ms = (System.nanoTime() - m0) / 1_000_000;
            Requests.check(r);
            if (r.get("result").has("conflicts")) {
                throw new IOException("the benchmark's merge should be clean: " + r);
            }
            out.put("merge_ms", ms);
            out.put("merge_commit", r.get("result").get("commit").asText());
            JsonNode v = c.call("ledger.verify", null).get("result");
            out.put("ledger_verify_ok", v.get("ok").asBoolean());
            out.put("ledger_lines", v.get("lines").asLong());
            JsonNode rp = c.call("replay", JsonRpc.MAPPER.createObjectNode().put("verify", true))
                    .get("result");
            out.put("replay_verify_ok", rp.get("ok").asBoolean());
        }
    }

    private static void drive(MemorydConfig cfg, int writes, String branch) {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            for (int i = 0; i < writes; i++) {
                ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
                ObjectNode op = ops.addObject();
                if (branch == null) {
                    op.put("op", "replace_section");
                    if (i % 2 == 0) {
                        op.put("path", "users/bench/overview.md")
                                .put("section", "Current Focus")
                                .put("content", "Focus, revision " + i + ".");
                    } else {
                        op.put("path", "users/bench/parts/part-0/profile.md")
                                .put("section", "Role")
                                .put("content", "Role, revision " + i + ".");
                    }
                } else if (i % 2 == 0) {
                    op.put("op", "append_item")
                            .put("path", "users/bench/overview.md")
                            .put("section", "Open Questions")
                            .put("item", "Question " + i + " from the feature branch?");
                } else {
                    op.put("op", "replace_section")
                            .put("path", "users/bench/parts/part-1/profile.md")
                            .put("section", "Role")
                            .put("content", "Feature role, revision " + i + ".");
                }
                ObjectNode d = Requests.decl("bench", ops);
                if (branch != null) {
                    d.put("branch", branch);
                }
                Requests.check(c.call("write", d));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
