package dev.memoryd.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench --mode peer}: memoryd beside the MCP reference memory server
 * ({@code @modelcontextprotocol/server-memory}, installed from npm into a cache directory,
 * {@code $MEMORYD_PEER_BENCH_DIR} or {@code ~/.cache/memoryd/peer-bench}), both driven from this
 * process: memoryd over its socket, the reference server over stdio (MCP JSON-RPC, one line per
 * message). The same item texts go to each: memoryd appends an item to a list section
 * ({@code append_item} on a part's Triggers, one fsynced commit each), the reference server adds
 * an observation to one entity ({@code add_observations}, which rewrites its JSONL file), so
 * both grow one list to {@code items}. The two alternate in blocks of {@link #BLOCK} (which one
 * starts a block alternates too), after {@code warmup} calls each on a list of their own. A
 * latency runs from the request's first byte sent to the reply read. memoryd's appends ask for
 * {@code durability} ({@code commit}: answered once committed; {@code ledger}: once their ledger
 * lines are durable, the commit right after).
 */
record PeerBench(int items, int warmup, String durability) implements Scenario {
    static final int BLOCK = 50;
    static final String PACKAGE = "@modelcontextprotocol/server-memory";
    private static final String PROFILE = "users/bench/parts/%s/profile.md";

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        Path cache = cacheDir();
        Path server = install(cache);
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
            ops.addObject()
                    .put("op", "create_entity")
                    .put("user_id", "bench")
                    .put("entity_type", "user")
                    .put("title", "Bench");
            for (String part : List.of("warm", "list")) {
                ops.addObject()
                        .put("op", "create_entity")
                        .put("user_id", "bench")
                        .put("entity_type", "part")
                        .put("entity_id", part)
                        .put("title", "Part " + part);
            }
            check(c.call("write", write(ops, "commit")));
        }
        Path store = Files.createTempDirectory("memoryd-peer-bench");
        try (Reference ref = Reference.start(server, store.resolve("memory.jsonl"));
                SocketClient socket = SocketClient.connect(cfg.socket())) {
            ref.call(
                    "tools/call",
                    tool(
                            "create_entities",
                            JsonRpc.MAPPER
                                    .createObjectNode()
                                    .set(
                                            "entities",
                                            JsonRpc.MAPPER
                                                    .createArrayNode()
                                                    .add(entity("warm"))
                                                    .add(entity("list")))));
            measure(socket, ref, "warm", warmup, null, null);
            long[] mine = new long[items];
            long[] theirs = new long[items];
            measure(socket, ref, "list", items, mine, theirs);
            Arrays.sort(mine);
            Arrays.sort(theirs);
            out.put("mode", "peer");
            out.put("reference", PACKAGE + "@" + ref.version);
            out.put("node", ref.node);
            out.put("items", items);
            out.put("warmup", warmup);
            out.put("durability", durability);
            out.put("block", BLOCK);
            out.put("memoryd_p50_ms", ms(mine[items / 2]));
            out.put("memoryd_p99_ms", ms(p99(mine)));
            out.put("reference_p50_ms", ms(theirs[items / 2]));
            out.put("reference_p99_ms", ms(p99(theirs)));
            out.put("p50_ratio", Math.round(1000.0 * mine[items / 2] / theirs[items / 2]) / 1000.0);
            out.put("p99_ratio", Math.round(1000.0 * p99(mine) / p99(theirs)) / 1000.0);
        } finally {
            try (java.util.stream.Stream<Path> s = Files.walk(store)) {
                for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** {@code n} items onto list {@code list} of each, alternating in blocks; latencies into the arrays when given. */
    private void measure(SocketClient socket, Reference ref, String list, int n, long[] mine, long[] theirs)
            throws IOException {
        for (int start = 0; start < n; start += BLOCK) {
            int end = Math.min(n, start + BLOCK);
            boolean memorydFirst = (start / BLOCK) % 2 == 0;
            for (int side = 0; side < 2; side++) {
                boolean memoryd = (side == 0) == memorydFirst;
                for (int i = start; i < end; i++) {
                    String text =
                            "observation " + i + " on " + list + ": the user prefers short answers in the morning";
                    long t0 = System.nanoTime();
                    if (memoryd) {
                        ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
                        ops.addObject()
                                .put("op", "append_item")
                                .put("path", String.format(PROFILE, list))
                                .put("section", "Triggers")
                                .put("item", text);
                        check(socket.call("write", write(ops, durability)));
                    } else {
                        ObjectNode obs = JsonRpc.MAPPER.createObjectNode();
                        obs.putArray("observations")
                                .addObject()
                                .put("entityName", list)
                                .putArray("contents")
                                .add(text);
                        ref.call("tools/call", tool("add_observations", obs));
                    }
                    long t = System.nanoTime() - t0;
                    long[] into = memoryd ? mine : theirs;
                    if (into != null) {
                        into[i] = t;
                    }
                }
            }
        }
    }

    static Path cacheDir() {
        String env = System.getenv("MEMORYD_PEER_BENCH_DIR");
        return env != null && !env.isBlank()
                ? Path.of(env)
                : Path.of(System.getProperty("user.home"), ".cache", "memoryd", "peer-bench");
    }

    /** The reference server's entry script, installed with npm into {@code cache} on first use. */
    static Path install(Path cache) throws IOException, InterruptedException {
        Path script = cache.resolve("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
        if (!Files.isRegularFile(script)) {
            Files.createDirectories(cache);
            Process npm = new ProcessBuilder(
                            "npm", "install", "--no-audit", "--no-fund", "--prefix", cache.toString(), PACKAGE)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                    .start();
            if (npm.waitFor() != 0 || !Files.isRegularFile(script)) {
                throw new IOException(
                        "npm install " + PACKAGE + " into " + cache + " failed (exit " + npm.exitValue() + ")");
            }
        }
        return script;
    }

    private static ObjectNode entity(String name) {
        ObjectNode e = JsonRpc.MAPPER.createObjectNode().put("name", name).put("entityType", "person");
        e.putArray("observations");
        return e;
    }

    private static ObjectNode tool(String name, ObjectNode args) {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("name", name);
        p.set("arguments", args);
        return p;
    }

    private static ObjectNode write(ArrayNode ops, String durability) {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode();
        p.set("ops", ops);
        p.put("rationale", "peer bench");
        p.put("durability", durability);
        return p;
    }

    private static void check(JsonNode reply) throws IOException {
        if (reply.has("error")) {
            throw new IOException("memoryd refused a bench call: " + reply.get("error"));
        }
    }

    private static long p99(long[] sorted) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
    }

    private static double ms(long nanos) {
        return Math.round(nanos / 1000.0) / 1000.0;
    }

    /** The reference server as a child process, one MCP request at a time over its stdio. */
    private static final class Reference implements AutoCloseable {
        private final Process proc;
        private final OutputStream in;
        private final BufferedReader outLines;
        private long nextId;
        String version;
        String node;

        private Reference(Process proc) {
            this.proc = proc;
            this.in = proc.getOutputStream();
            this.outLines = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8));
        }

        static Reference start(Path script, Path store) throws IOException, InterruptedException {
            ProcessBuilder pb =
                    new ProcessBuilder("node", script.toString()).redirectError(ProcessBuilder.Redirect.DISCARD);
            pb.environment().put("MEMORY_FILE_PATH", store.toString());
            Reference r = new Reference(pb.start());
            ObjectNode init = JsonRpc.MAPPER.createObjectNode().put("protocolVersion", "2025-06-18");
            init.putObject("capabilities");
            init.putObject("clientInfo").put("name", "memoryd-peer-bench").put("version", "1");
            JsonNode res = r.call("initialize", init);
            r.version = res.path("serverInfo").path("version").asText("?");
            r.send(JsonRpc.MAPPER.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized"));
            Process v = new ProcessBuilder("node", "--version")
                    .redirectErrorStream(true)
                    .start();
            r.node = new String(v.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            v.waitFor();
            return r;
        }

        private void send(ObjectNode msg) throws IOException {
            in.write((JsonRpc.MAPPER.writeValueAsString(msg) + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        /** Sends a request and returns its result; an error or a tool error fails the bench. */
        JsonNode call(String method, ObjectNode params) throws IOException {
            long id = ++nextId;
            ObjectNode req = JsonRpc.MAPPER
                    .createObjectNode()
                    .put("jsonrpc", "2.0")
                    .put("id", id)
                    .put("method", method);
            req.set("params", params);
            send(req);
            for (String line; (line = outLines.readLine()) != null; ) {
                JsonNode msg = JsonRpc.MAPPER.readTree(line);
                if (msg.path("id").asLong(-1) != id) {
                    continue; // a notification or log line
                }
                if (msg.has("error") || msg.path("result").path("isError").asBoolean(false)) {
                    throw new IOException("the reference server failed " + method + ": " + msg);
                }
                return msg.get("result");
            }
            throw new IOException("the reference server closed its output");
        }

        @Override
        public void close() throws InterruptedException {
            proc.destroy();
            proc.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
