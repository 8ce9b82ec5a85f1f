package dev.memoryd.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code bench --mode write} (the default): each of {@code clients} clients replaces its own
 * part's Role section, one declaration per request, waiting for each acknowledgement (closed
 * loop). {@code history} events are written first (50-op declarations by 4 clients), then
 * {@code warmup} declarations, so the figures are a running daemon's; then {@code writes} are
 * timed. Also reports the daemon's JIT time while measuring, its {@code write_stats} and its
 * resident memory at each stage (after {@code idleS} idle seconds too, when not 0). Every write
 * asks for {@code durability}; with {@code rate} above 0 each client sends the measured writes on
 * a fixed schedule of that many a second (open loop), each latency counted from its scheduled
 * time, so a slow reply delays none of the next ones' clocks.
 */
record WriteBench(
        int clients,
        int writes,
        int history,
        int warmup,
        int idleS,
        String durability,
        double rate,
        DaemonChild child,
        Process daemon)
        implements Scenario {

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        ObjectNode rss = out.putObject("daemon_rss_mb");
        out.put("daemon_jvm", String.join(" ", child.jvm()));
        rss.put("started", DaemonChild.rssMb(daemon, "VmRSS"));
        if (idleS > 0) {
            Thread.sleep(idleS * 1000L);
            rss.put("idle_before", DaemonChild.rssMb(daemon, "VmRSS"));
        }
        int parts = Math.max(clients, 1);
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            Requests.check(c.call("write", Requests.decl("bench-setup", Requests.createOps(parts))));
        }
        if (history > 0) {
            prefill(cfg, parts);
        }
        send(cfg, parts, warmup, null);
        rss.put("after_warmup", DaemonChild.rssMb(daemon, "VmRSS"));
        Disk.settle();
        long[] lat = new long[writes];
        long jit0 = jitMs(cfg);
        double cpu0 = DaemonChild.cpuSeconds(daemon.pid());
        long t0 = System.nanoTime();
        send(cfg, parts, writes, lat);
        double secs = (System.nanoTime() - t0) / 1e9;
        double cpu = DaemonChild.cpuSeconds(daemon.pid()) - cpu0;
        long jitDuring = jitMs(cfg) - jit0;
        Arrays.sort(lat);
        out.put("writes", writes);
        out.put("clients", clients);
        out.put("durability", durability);
        out.put("rate_per_client", rate);
        out.put("p50_ms", Stats.ms(Stats.p50(lat)));
        out.put("p99_ms", Stats.ms(Stats.p99(lat)));
        out.put("writes_per_s", Stats.round(writes / secs));
        out.put("history_events", history);
        out.put("warmup", warmup);
        // JIT compilation in the daemon while measuring: near 0 for a warmed daemon
        out.put("jit_ms_measured", jitDuring);
        // The daemon's CPU (every thread, the JIT's too) per measured write: unlike latency, barely
        // moved by what else shares the machine, so builds compare on it under load.
        out.put("daemon_cpu_ms_per_write", Stats.round(cpu * 1000 / writes));
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            out.set("write_stats", c.call("ping", null).path("result").path("write_stats"));
        }
        rss.put("after", DaemonChild.rssMb(daemon, "VmRSS"));
        rss.put("peak", DaemonChild.rssMb(daemon, "VmHWM"));
        rss.put("after_anon", DaemonChild.rssMb(daemon, "RssAnon")); // the rest is mapped files (jar, index)
        if (idleS > 0) {
            Thread.sleep(idleS * 1000L);
            rss.put("idle_after", DaemonChild.rssMb(daemon, "VmRSS"));
        }
    }

    private static ObjectNode replaceRole(int part, long n) {
        ObjectNode o = JsonRpc.MAPPER.createObjectNode();
        o.put("op", "replace_section");
        o.put("path", "users/bench/parts/part-" + part + "/profile.md");
        o.put("section", "Role");
        o.put(
                "content",
                "Keeps watch over the day's plans; revision " + n
                        + ". Steps in when the schedule slips and the inner critic gets loud.");
        return o;
    }

    private void prefill(MemorydConfig cfg, int parts) throws Exception {
        int perDecl = 50;
        int decls = (history + perDecl - 1) / perDecl;
        ExecutorService ex = Executors.newFixedThreadPool(4);
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            final int thread = t;
            fs.add(ex.submit(() -> {
                try (SocketClient c = SocketClient.connect(cfg.socket())) {
                    for (int d = thread; d < decls; d += 4) {
                        ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
                        for (int i = 0; i < perDecl; i++) {
                            ObjectNode o = JsonRpc.MAPPER.createObjectNode();
                            o.put("op", "replace_section");
                            o.put("path", "users/bench/parts/part-" + (thread % parts) + "/profile.md");
                            o.put("section", "Concerns");
                            o.put("content", "History filler " + d + "/" + i + ".");
                            ops.add(o);
                        }
                        Requests.check(c.call("write", Requests.decl("prefill", ops)));
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        ex.shutdown();
    }

    /** {@code total} declarations by the clients; each one's latency into {@code lat} unless null (warm-up). */
    private void send(MemorydConfig cfg, int parts, int total, long[] lat) throws Exception {
        ExecutorService ex = Executors.newFixedThreadPool(clients);
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < clients; t++) {
            final int client = t;
            fs.add(ex.submit(() -> {
                try (SocketClient c = SocketClient.connect(cfg.socket())) {
                    long period = lat != null && rate > 0 ? (long) (1e9 / rate) : 0;
                    long next = System.nanoTime();
                    for (int i = client; i < total; i += clients) {
                        ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
                        ops.add(replaceRole(client % parts, (lat == null ? -1 : 1) * (long) i));
                        ObjectNode decl = Requests.decl("bench", ops);
                        decl.put("durability", durability);
                        long s = System.nanoTime();
                        if (period > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(next - s);
                            s = next;
                            next += period;
                        }
                        Requests.check(c.call("write", decl));
                        if (lat != null) {
                            lat[i] = System.nanoTime() - s;
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        ex.shutdown();
    }

    /** The daemon's total JIT compilation time so far (ms), from {@code ping}. */
    private static long jitMs(MemorydConfig cfg) throws IOException {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            return c.call("ping", null)
                    .path("result")
                    .path("runtime")
                    .path("jit_ms")
                    .asLong(-1);
        }
    }
}
