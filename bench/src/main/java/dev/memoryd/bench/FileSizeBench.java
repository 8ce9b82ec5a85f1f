package dev.memoryd.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;

/**
 * {@code bench --mode filesize}: whether a write's cost follows the change or the file. Two parts
 * of the bench user, {@code part-0} whose Needs list is first filled to 4 KB (the file ~5 KB) and
 * {@code part-1} whose Needs list is filled to {@code fileKb} KB (one {@code replace_section} each);
 * then the same small change, one {@code append_item} to the part's Triggers, goes to each,
 * alternating in blocks of {@link #BLOCK} (which file starts a block alternates too), {@code warmup}
 * of each first, {@code writes} of each measured. After each block the Triggers are set back to
 * one item (not timed), so neither file grows over the run and the only difference between the
 * two is the text the change does not touch. One client, closed loop; a
 * latency runs from the request's first byte sent to the reply read. The daemon's CPU time (all
 * its threads, {@code /proc}) is taken around each block, after a {@code search} that waits for the
 * block's index updates, so each side's CPU per write counts the work a write leaves behind too;
 * on a loaded machine it varies far less than the latencies. Reports each side's p50 and p99 and
 * CPU per write, the files' sizes at the end, {@code p50_ratio} and {@code cpu_ratio} (large over
 * small).
 */
record FileSizeBench(int writes, int warmup, int fileKb, Process daemon) implements Scenario {
    static final int BLOCK = 50;
    /** What the small file's Needs are filled to, which makes it about 5 KB. */
    static final int SMALL_KB = 4;

    private static final String PROFILE = "users/bench/parts/part-%d/profile.md";

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            Requests.check(c.call("write", Requests.decl("bench-setup", Requests.createOps(2))));
            Requests.check(c.call("write", Requests.decl("bench-setup", fill(0, SMALL_KB))));
            Requests.check(c.call("write", Requests.decl("bench-setup", fill(1, fileKb))));
            measure(c, warmup, null, null, null);
            Disk.settle();
            long[] small = new long[writes];
            long[] large = new long[writes];
            double[] cpu = new double[2];
            measure(c, writes, small, large, cpu);
            Arrays.sort(small);
            Arrays.sort(large);
            out.put("mode", "filesize");
            out.put("writes", writes);
            out.put("warmup", warmup);
            out.put("block", BLOCK);
            out.put("small_bytes", Files.size(cfg.root().resolve(String.format(PROFILE, 0))));
            out.put("large_bytes", Files.size(cfg.root().resolve(String.format(PROFILE, 1))));
            out.put("small_p50_ms", Stats.ms(Stats.p50(small)));
            out.put("small_p99_ms", Stats.ms(Stats.p99(small)));
            out.put("large_p50_ms", Stats.ms(Stats.p50(large)));
            out.put("large_p99_ms", Stats.ms(Stats.p99(large)));
            out.put("p50_ratio", Stats.round((double) Stats.p50(large) / Stats.p50(small)));
            out.put("small_cpu_ms_per_write", Stats.round(cpu[0] * 1000 / writes));
            out.put("large_cpu_ms_per_write", Stats.round(cpu[1] * 1000 / writes));
            out.put("cpu_ratio", Stats.round(cpu[1] / cpu[0]));
        }
    }

    /** One {@code replace_section} that makes the part's Needs about {@code kb} KB of bullets. */
    private static ArrayNode fill(int part, int kb) {
        StringBuilder items = new StringBuilder();
        for (int i = 0; items.length() < kb * 1024; i++) {
            items.append("- need ")
                    .append(i)
                    .append(": a quiet hour before the first meeting, and the agenda sent the evening before\n");
        }
        ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
        ops.addObject()
                .put("op", "replace_section")
                .put("path", String.format(PROFILE, part))
                .put("section", "Needs")
                .put("content", items.toString());
        return ops;
    }

    /**
     * {@code n} appends to each part, alternating in blocks; latencies into the arrays and the
     * daemon's CPU seconds per part into {@code cpu} when given.
     */
    private void measure(SocketClient c, int n, long[] small, long[] large, double[] cpu) throws IOException {
        for (int start = 0; start < n; start += BLOCK) {
            int end = Math.min(n, start + BLOCK);
            boolean smallFirst = (start / BLOCK) % 2 == 0;
            for (int side = 0; side < 2; side++) {
                int part = (side == 0) == smallFirst ? 0 : 1;
                double cpu0 = DaemonChild.cpuSeconds(daemon.pid());
                for (int i = start; i < end; i++) {
                    ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
                    ops.addObject()
                            .put("op", "append_item")
                            .put("path", String.format(PROFILE, part))
                            .put("section", "Triggers")
                            .put(
                                    "item",
                                    "trigger " + i + (small == null ? " (warm-up)" : "") + ": a late change of plans");
                    long t0 = System.nanoTime();
                    Requests.check(c.call("write", Requests.decl("filesize bench", ops)));
                    long t = System.nanoTime() - t0;
                    long[] into = part == 0 ? small : large;
                    if (into != null) {
                        into[i] = t;
                    }
                }
                Requests.check(
                        c.call("search", JsonRpc.MAPPER.createObjectNode().put("q", "trigger"))); // indexed
                if (cpu != null) {
                    cpu[part] += DaemonChild.cpuSeconds(daemon.pid()) - cpu0;
                }
                reset(c, part);
                Requests.check(
                        c.call("search", JsonRpc.MAPPER.createObjectNode().put("q", "trigger")));
            }
        }
    }

    /** Empties the part's Triggers again (not timed), so neither file grows over the run. */
    private static void reset(SocketClient c, int part) throws IOException {
        ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
        ops.addObject()
                .put("op", "replace_section")
                .put("path", String.format(PROFILE, part))
                .put("section", "Triggers")
                .put("content", "- a late change of plans\n");
        Requests.check(c.call("write", Requests.decl("filesize bench", ops)));
    }
}
