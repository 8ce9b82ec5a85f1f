package dev.memoryd.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.PersonIdent;

/**
 * {@code bench --mode refs}: a Git repository beside the root with {@code refs} referenced files
 * (plus as many unreferenced ones) and 200 commits of unrelated history, {@code refs} references
 * into it, then 10% of the referenced files changed in 10 commits (8% edited, 1% renamed, 1%
 * deleted); times {@code refs.reconcile} over the socket before the changes (all unchanged), after
 * them (every change recorded in the drift queue), and once more (nothing new to record).
 */
record RefsBench(int refs) implements Scenario {

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws IOException, GitAPIException {
        Path repo = cfg.root().resolveSibling(cfg.root().getFileName() + "-code");
        Files.createDirectories(repo);
        java.util.Random rnd = new java.util.Random(42);
        try (Git git =
                Git.init().setDirectory(repo.toFile()).setInitialBranch("main").call()) {
            for (int i = 0; i < 2 * refs; i++) {
                write(repo, file(i), "file " + i + "\n" + "x".repeat(200 + rnd.nextInt(800)) + "\n");
            }
            commit(git, "initial import", 0);
            for (int k = 1; k <= 200; k++) { // history the walks go through, touching only unreferenced files
                write(repo, file(refs + rnd.nextInt(refs)), "churn " + k + "\n");
                commit(git, "churn " + k, k);
            }
            long tAdd = System.nanoTime();
            try (SocketClient c = SocketClient.connect(cfg.socket())) {
                for (int i = 0; i < refs; i++) {
                    ObjectNode p = JsonRpc.MAPPER
                            .createObjectNode()
                            .put("path", file(i))
                            .put("repo", repo.toString())
                            .put("placed_on", ".gitignore");
                    Requests.check(c.call("refs.add", p));
                }
                out.put("refs", refs);
                out.put("add_per_s", Math.round(refs / ((System.nanoTime() - tAdd) / 1e9)));
                out.put("history_commits", 201);
                reconcile(c, out, "unchanged");
                int changed = refs / 10;
                for (int i = 0; i < changed; i++) {
                    int f = i * 10; // every tenth referenced file
                    if (i % 10 == 8) {
                        Files.move(repo.resolve(file(f)), repo.resolve(file(f) + ".moved")); // a pure rename
                    } else if (i % 10 == 9) {
                        Files.delete(repo.resolve(file(f)));
                    } else {
                        write(repo, file(f), "changed " + i + "\n");
                    }
                    if (i % (changed / 10 == 0 ? 1 : changed / 10) == 0 || i == changed - 1) {
                        commit(git, "change batch " + i, 300 + i);
                    }
                }
                commit(git, "last changes", 1000);
                out.put("changed", changed);
                reconcile(c, out, "after_changes");
                reconcile(c, out, "repeat");
            }
        }
    }

    private static void reconcile(SocketClient c, ObjectNode out, String label) throws IOException {
        long t = System.nanoTime();
        JsonNode r = c.call("refs.reconcile", JsonRpc.MAPPER.createObjectNode());
        double s = (System.nanoTime() - t) / 1e9;
        Requests.check(r);
        int recorded = 0;
        java.util.Map<String, Integer> kinds = new java.util.TreeMap<>();
        for (JsonNode f : r.get("result").get("findings")) {
            recorded += f.get("recorded").asBoolean() ? 1 : 0;
            kinds.merge(f.get("kind").asText(), 1, Integer::sum);
        }
        ObjectNode o = out.putObject("reconcile_" + label);
        kinds.forEach(o::put);
        o.put("seconds", Math.round(s * 1000) / 1000.0);
        o.put("server_ms", r.get("result").get("millis").asLong());
        o.put("checked", r.get("result").get("checked").asInt());
        o.put("findings", r.get("result").get("findings").size());
        o.put("recorded", recorded);
    }

    private static String file(int i) {
        return "src/d" + (i % 20) + "/f" + i + ".txt";
    }

    private static void write(Path repo, String rel, String text) throws IOException {
        Path p = repo.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardCharsets.UTF_8);
    }

    private static void commit(Git git, String msg, int minute) throws GitAPIException {
        PersonIdent who = new PersonIdent(
                "Bench Author",
                "bench@example.com",
                Instant.parse("2025-01-01T00:00:00Z").plusSeconds(60L * minute),
                ZoneOffset.UTC);
        git.add().addFilepattern(".").call();
        git.add().addFilepattern(".").setUpdate(true).call();
        git.commit()
                .setMessage(msg)
                .setAuthor(who)
                .setCommitter(who)
                .setAllowEmpty(true)
                .call();
    }
}
