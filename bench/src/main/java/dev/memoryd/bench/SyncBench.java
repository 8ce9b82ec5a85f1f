package dev.memoryd.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.file.Path;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.StoredConfig;

/**
 * {@code bench --mode sync}: two roots and a bare repository on disk between them, each root
 * served by its own daemon (a child JVM). Root A is the bench root; B is {@code memoryd clone}d
 * from the bare repository as replica {@code b}. Both write {@code writes} declarations at the
 * same time (closed loop, one client each: A on part-0, B on part-1, the overview on both so files
 * merge per section), then A syncs (push), B syncs (fetch, merge A's writes, push) and A syncs
 * (fetch, take B's merge), B syncs once more (A's merge line, committed with no event), and a
 * sixth and seventh sync must find nothing to do. Times each sync over
 * the socket and checks that both hold the same tree and that both ledgers and replays verify.
 */
record SyncBench(int writes, DaemonChild child) implements Scenario {

    @Override
    public void run(MemorydConfig a, ObjectNode out) throws Exception {
        Path remote = a.root().resolveSibling(a.root().getFileName() + "-remote.git");
        Git.init()
                .setBare(true)
                .setInitialBranch("main")
                .setDirectory(remote.toFile())
                .call()
                .close();
        try (Git g = Git.open(a.root().toFile())) {
            StoredConfig c = g.getRepository().getConfig();
            c.setString("remote", "origin", "url", remote.toString());
            c.setString("remote", "origin", "fetch", "+refs/heads/*:refs/remotes/origin/*");
            c.save();
        }
        try (SocketClient c = SocketClient.connect(a.socket())) {
            Requests.check(c.call("write", Requests.decl("bench", Requests.createOps(2))));
            Requests.check(sync(c));
        }
        MemorydConfig b =
                MemorydConfig.defaults(a.root().resolveSibling(a.root().getFileName() + "-b"), a.keyFile());
        Memoryd.cloneRoot(b, remote.toString(), "b");
        Process pb = child.start(b);
        try {
            long t0 = System.nanoTime();
            Thread other = new Thread(() -> drive(b, writes, 1), "bench-b");
            Throwable[] failed = new Throwable[1];
            other.setUncaughtExceptionHandler((t, e) -> failed[0] = e);
            other.start();
            drive(a, writes, 0);
            other.join();
            if (failed[0] != null) {
                throw new IOException("root b's writes failed: " + failed[0], failed[0]);
            }
            out.put("mode", "sync");
            out.put("writes_per_root", writes);
            out.put("write_seconds", Math.round((System.nanoTime() - t0) / 1e7) / 100.0);
            out.put("sync_a_push_ms", timedSync(a, "main", null));
            out.put("sync_b_merge_ms", timedSync(b, "main", "merged"));
            out.put("sync_a_take_ms", timedSync(a, "main", null));
            // B holds A's merge line only once it commits it (a merge with no event); then both settle.
            out.put("sync_b_chains_ms", timedSync(b, "main", "chains"));
            out.put("settle_a_ms", timedSync(a, "main", "up_to_date"));
            out.put("settle_b_ms", timedSync(b, "main", "up_to_date"));
            out.put("same_tree", tree(a).equals(tree(b)));
            out.put("ledger_verify_ok", verified(a) && verified(b));
            out.put("replay_verify_ok", replayed(a) && replayed(b));
        } finally {
            DaemonChild.stop(pb);
            // b's root and the remote are named after the bench root, which the bench removes with its siblings.
        }
    }

    private static long timedSync(MemorydConfig cfg, String branch, String expected) throws IOException {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            long t = System.nanoTime();
            JsonNode r = sync(c);
            long ms = (System.nanoTime() - t) / 1_000_000;
            Requests.check(r);
            if (!r.get("result").get("ok").asBoolean()) {
                throw new IOException("sync did not succeed: " + r);
            }
            if (expected != null) {
                for (JsonNode row : r.get("result").get("branches")) {
                    if (row.get("branch").asText().equals(branch)
                            && !row.get("outcome").asText().equals(expected)) {
                        throw new IOException("expected " + expected + " on " + branch + ": " + r);
                    }
                }
            }
            return ms;
        }
    }

    private static JsonNode sync(SocketClient c) throws IOException {
        return c.call("sync", JsonRpc.MAPPER.createObjectNode().put("remote", "origin"));
    }

    private static String tree(MemorydConfig cfg) throws IOException {
        try (Git g = Git.open(cfg.root().toFile())) {
            return g.getRepository().resolve("main^{tree}").name();
        }
    }

    private static boolean verified(MemorydConfig cfg) throws IOException {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            return c.call("ledger.verify", null).path("result").path("ok").asBoolean();
        }
    }

    private static boolean replayed(MemorydConfig cfg) throws IOException {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            return c.call("replay", JsonRpc.MAPPER.createObjectNode().put("verify", true))
                    .path("result")
                    .path("ok")
                    .asBoolean();
        }
    }

    private static void drive(MemorydConfig cfg, int writes, int part) {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            for (int i = 0; i < writes; i++) {
                ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
                ObjectNode op = ops.addObject();
                if (i % 4 == 3) {
                    // Both roots touch the overview, in different sections: merged per section.
                    op.put("op", "replace_section")
                            .put("path", "users/bench/overview.md")
                            .put("section", part == 0 ? "Current Focus" : "Identity")
                            .put("content", "Root " + part + ", revision " + i + ".");
                } else {
                    op.put("op", "append_item")
                            .put("path", "users/bench/parts/part-" + part + "/profile.md")
                            .put("section", "Triggers")
                            .put("item", "Note " + i + " from root " + part);
                }
                Requests.check(c.call("write", Requests.decl("bench", ops)));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
