package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.app.Daemon;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The training run of the daemon's AOT cache that {@code bin/memoryd serve} builds next to the jar
 * on JDK 25 and later ({@code java -XX:AOTCacheOutput=memoryd-serve.aot <serve's options> -cp
 * memoryd.jar ...ServeTraining}): serves a throwaway root in this JVM and sends it an agent's
 * everyday traffic over its socket from {@value #CLIENTS} clients at once (each a few hundred
 * section replacements and list appends, with reads, searches and histories between them), then
 * a directory of notes through {@code memoryd import}. The cache then holds the classes a serving
 * daemon loads, linked, and the profiles of its methods, so a daemon started with it compiles its
 * write path from its first writes instead of after thousands. Prints nothing; touches nothing
 * outside a temp directory, which it removes. Exit 0 when every request was answered, 1 otherwise
 * (the launcher then keeps no cache), each failure named on stderr.
 */
public final class ServeTraining {
    private ServeTraining() {}

    /** Clients writing at once: a batch of several declarations is the path of a busy daemon. */
    static final int CLIENTS = 8;

    /** Declarations each client sends. */
    static final int WRITES = 400;

    /** Notes imported at the end. */
    static final int NOTES = 400;

    public static void main(String[] args) throws Exception {
        TrainingRun.exitAfter("memoryd: daemon training run: ", "memoryd-serve-training", ServeTraining::train);
    }

    private static void train(Path tmp, List<String> failed) throws Exception {
        MemorydConfig cfg = MemorydConfig.defaults(tmp.resolve("memory"), tmp.resolve("ledger.key"));
        Memoryd.init(cfg, null);
        String r = cfg.root().toString();
        String k = cfg.keyFile().toString();
        try (Daemon d = Daemon.start(cfg)) {
            try (SocketClient c = SocketClient.connect(cfg.socket())) {
                expectResult(failed, c.call("write", decl(setupOps())));
            }
            List<Thread> clients = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                int client = i;
                Thread t = new Thread(() -> agent(cfg, client, failed), "training-agent-" + i);
                t.start();
                clients.add(t);
            }
            for (Thread t : clients) {
                t.join();
            }
            Path notes = Files.createDirectories(tmp.resolve("notes"));
            for (int i = 0; i < NOTES; i++) {
                Files.writeString(
                        notes.resolve(String.format("note-%04d.md", i)),
                        "A walk in the morning, note " + i + ": calmer after the call with my sister.\n");
            }
            int imported = Main.run(
                    "import",
                    notes.toString(),
                    "--user",
                    "trainee",
                    "--override-rationale",
                    "training",
                    "--json",
                    "--root",
                    r,
                    "--key-file",
                    k);
            if (imported != 0) {
                failed.add("import exited " + imported);
            }
        }
    }

    /** One agent's traffic: appends and replacements on its own part, a read, search or history now and then. */
    private static void agent(MemorydConfig cfg, int client, List<String> failed) {
        String path = "users/trainee/parts/part-" + client + "/profile.md";
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            for (int i = 0; i < WRITES && failed.isEmpty(); i++) {
                ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
                ObjectNode op = ops.addObject();
                if (i % 4 == 0) {
                    op.put("op", "replace_section")
                            .put("path", path)
                            .put("section", "Role")
                            .put("content", "Keeps watch over the day's plans; revision " + i + ".");
                } else {
                    op.put("op", "append_item")
                            .put("path", path)
                            .put("section", "Triggers")
                            .put("item", "trigger " + i + ": a late change of plans");
                }
                expectResult(failed, c.call("write", decl(ops)));
                if (i % 20 == 10) {
                    ObjectNode q = JsonRpc.MAPPER.createObjectNode().put("path", path);
                    expectResult(failed, c.call("read", q));
                    expectResult(
                            failed,
                            c.call("search", JsonRpc.MAPPER.createObjectNode().put("q", "plans")));
                    expectResult(failed, c.call("history", q.put("limit", 5)));
                }
            }
        } catch (IOException e) {
            failed.add("client " + client + ": " + e);
        }
    }

    private static ArrayNode setupOps() {
        ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
        ops.addObject()
                .put("op", "create_entity")
                .put("user_id", "trainee")
                .put("entity_type", "user")
                .put("title", "Trainee");
        for (int i = 0; i < CLIENTS; i++) {
            ops.addObject()
                    .put("op", "create_entity")
                    .put("user_id", "trainee")
                    .put("entity_type", "part")
                    .put("entity_id", "part-" + i)
                    .put("title", "Part " + i);
        }
        return ops;
    }

    private static ObjectNode decl(ArrayNode ops) {
        ObjectNode d = JsonRpc.MAPPER.createObjectNode();
        d.set("ops", ops);
        d.put("rationale", "training");
        d.put("actor", "trainee");
        return d;
    }

    private static void expectResult(List<String> failed, JsonNode reply) {
        if (reply == null || !reply.has("result")) {
            failed.add("refused: " + reply);
        }
    }
}
