package dev.memoryd.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.cli.Main;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench --mode mcp}: what {@code memoryd mcp} adds to a call. One {@code memoryd mcp}
 * child process (started as {@code bin/memoryd} starts it) in front of the daemon, one MCP client
 * on its stdin/stdout, one socket client beside it; the same {@code write} (a section replaced,
 * one commit) goes through each, alternating in blocks of {@link #BLOCK} so that both see the
 * same disk and the same load, then the same for a section {@code read} (no fsync: the shim's own
 * cost with less noise around it). Each latency runs from the request's first byte sent to its
 * reply's last byte read. The shim's resource watch runs as it does for any client.
 */
record McpBench(int writes, int warmup) implements Scenario {
    /** Calls per path before switching to the other. */
    static final int BLOCK = 50;
    /** The JVM options {@code bin/memoryd} starts {@code mcp} with (the quick JIT alone: see the launcher). */
    static final List<String> LAUNCHER_OPTS =
            List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData");

    private static final String PROFILE = "users/bench/parts/part-0/profile.md";

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            Requests.check(c.call("write", Requests.decl("bench", Requests.createOps(1))));
        }
        String extra = System.getenv("MEMORYD_MCP_JAVA_OPTS");
        List<String> jvm = extra == null || extra.isBlank()
                ? LAUNCHER_OPTS
                : List.of(extra.trim().split("\\s+"));
        try (Shim mcp = Shim.start(cfg, jvm);
                SocketClient socket = SocketClient.connect(cfg.socket())) {
            Paths paths = new Paths(mcp, socket);
            paths.measure("write", warmup, null, null); // both JVMs compile their hot paths before anything counts
            long[] viaSocket = new long[writes];
            long[] viaMcp = new long[writes];
            paths.measure("write", writes, viaSocket, viaMcp);
            long[] readSocket = new long[writes];
            long[] readMcp = new long[writes];
            paths.measure("read", Math.min(warmup, writes), null, null);
            paths.measure("read", writes, readSocket, readMcp);
            out.put("mode", "mcp");
            out.put("calls_per_path", writes);
            out.put("warmup", warmup);
            out.put("block", BLOCK);
            out.put("mcp_jvm", String.join(" ", jvm));
            report(out.putObject("write"), viaSocket, viaMcp);
            report(out.putObject("read"), readSocket, readMcp);
        }
    }

    private static void report(ObjectNode o, long[] socket, long[] mcp) {
        Arrays.sort(socket);
        Arrays.sort(mcp);
        o.put("socket_p50_ms", ms(socket[socket.length / 2]));
        o.put("socket_p99_ms", ms(p99(socket)));
        o.put("mcp_p50_ms", ms(mcp[mcp.length / 2]));
        o.put("mcp_p99_ms", ms(p99(mcp)));
        o.put("added_p50_ms", ms(mcp[mcp.length / 2] - socket[socket.length / 2]));
        o.put("added_p99_ms", ms(p99(mcp) - p99(socket)));
        o.put("p50_ratio", Math.round(1000.0 * mcp[mcp.length / 2] / socket[socket.length / 2]) / 1000.0);
    }

    private static long p99(long[] sorted) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
    }

    private static double ms(long nanos) {
        return Math.round(nanos / 1e3) / 1e3;
    }

    /** The two paths, taking turns in blocks; the block that goes first alternates too. */
    private record Paths(Shim mcp, SocketClient socket) {
        void measure(String method, int n, long[] viaSocket, long[] viaMcp) throws IOException {
            int bySocket = 0;
            int byMcp = 0;
            long revision = 0;
            for (int block = 0; bySocket < n || byMcp < n; block++) {
                for (int turn = 0; turn < 2; turn++) {
                    boolean socketTurn = (block + turn) % 2 == 0;
                    for (int i = 0; i < BLOCK; i++) {
                        if (socketTurn && bySocket < n) {
                            long t = System.nanoTime();
                            Requests.check(socket.call(method, params(method, ++revision)));
                            record(viaSocket, bySocket++, System.nanoTime() - t);
                        } else if (!socketTurn && byMcp < n) {
                            long t = System.nanoTime();
                            mcp.call(method, params(method, ++revision));
                            record(viaMcp, byMcp++, System.nanoTime() - t);
                        }
                    }
                }
            }
        }

        private static void record(long[] into, int i, long nanos) {
            if (into != null) {
                into[i] = nanos;
            }
        }

        private static ObjectNode params(String method, long revision) {
            if (method.equals("read")) {
                return JsonRpc.MAPPER.createObjectNode().put("path", PROFILE).put("section", "role");
            }
            ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
            ops.addObject()
                    .put("op", "replace_section")
                    .put("path", PROFILE)
                    .put("section", "Role")
                    .put(
                            "content",
                            "Keeps watch over the day's plans; revision " + revision
                                    + ". Steps in when the schedule slips and the inner critic gets loud.");
            return Requests.decl("bench", ops);
        }
    }

    /** A {@code memoryd mcp} child process and an MCP client on its stdin and stdout, one call at a time. */
    private static final class Shim implements AutoCloseable {
        private final Process process;
        private final OutputStream in;
        private final BufferedReader out;
        private long ids;

        private Shim(Process process) {
            this.process = process;
            this.in = process.getOutputStream();
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        static Shim start(MemorydConfig cfg, List<String> jvm) throws IOException {
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> cmd = new ArrayList<>(List.of(java));
            cmd.addAll(jvm);
            cmd.addAll(List.of(
                    "-cp",
                    System.getProperty("java.class.path"),
                    Main.class.getName(),
                    "mcp",
                    "--root",
                    cfg.root().toString()));
            Process p = new ProcessBuilder(cmd)
                    .redirectError(cfg.root()
                            .resolveSibling(cfg.root().getFileName() + ".mcp.log")
                            .toFile())
                    .start();
            Shim s = new Shim(p);
            s.request(
                    "initialize",
                    JsonRpc.MAPPER
                            .createObjectNode()
                            .put("protocolVersion", "2025-06-18")
                            .<ObjectNode>set("capabilities", JsonRpc.MAPPER.createObjectNode())
                            .set(
                                    "clientInfo",
                                    JsonRpc.MAPPER
                                            .createObjectNode()
                                            .put("name", "bench")
                                            .put("version", "1")));
            s.send(JsonRpc.MAPPER.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized"));
            return s;
        }

        /** {@code tools/call} of the tool for {@code method}; fails unless the tool result is a success. */
        void call(String method, ObjectNode arguments) throws IOException {
            ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("name", method);
            p.set("arguments", arguments);
            JsonNode r = request("tools/call", p);
            if (!r.has("result") || r.at("/result/isError").asBoolean()) {
                throw new IOException("tools/call " + method + " failed: " + r);
            }
        }

        private JsonNode request(String method, ObjectNode params) throws IOException {
            long id = ++ids;
            ObjectNode req = JsonRpc.MAPPER
                    .createObjectNode()
                    .put("jsonrpc", "2.0")
                    .put("id", id)
                    .put("method", method);
            req.set("params", params);
            send(req);
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                JsonNode msg = JsonRpc.MAPPER.readTree(line);
                if (msg.path("id").asLong(-1) == id) {
                    return msg;
                } // a notification (the resource watch's): not this call's reply
            }
            throw new IOException(
                    "memoryd mcp closed its stdout (exit " + (process.isAlive() ? "?" : process.exitValue()) + ")");
        }

        private void send(JsonNode msg) throws IOException {
            in.write((JsonRpc.MAPPER.writeValueAsString(msg) + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        @Override
        public void close() throws Exception {
            in.close();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
