package dev.memoryd.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench --mode human}: a human's edit to its committed event. A save (temp file + rename,
 * as editors do) of one section, then the time until the branch ref moves, polled every 0.2 ms;
 * {@code edits} saves, spaced past the daemon's quiet period {@code quietMs} so each is measured
 * alone.
 */
record HumanBench(int edits, long quietMs) implements Scenario {

    @Override
    public void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            Requests.check(c.call("write", Requests.decl("bench-setup", Requests.createOps(1))));
        }
        Path f = cfg.root().resolve("users/bench/parts/part-0/profile.md");
        Path ref = cfg.root().resolve(".git/refs/heads/" + cfg.branch());
        Thread.sleep(quietMs + 1000); // the daemon's own write has been looked at
        long[] lat = new long[edits];
        for (int i = 0; i < edits; i++) {
            String before = Files.readString(ref);
            String text = Files.readString(f);
            int at = text.indexOf("<!-- @anchor: role v1 -->\n") + "<!-- @anchor: role v1 -->\n".length();
            String next = text.substring(0, at) + "\nHuman line " + i + ".\n" + text.substring(at);
            Path tmp = f.resolveSibling(".profile.md.swp" + i);
            Files.writeString(tmp, next);
            long t0 = System.nanoTime();
            Files.move(
                    tmp,
                    f,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            long deadline = t0 + TimeUnit.MILLISECONDS.toNanos(quietMs * 10 + 10_000);
            while (Files.readString(ref).equals(before)) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("save " + i + " was not committed within " + (quietMs * 10 + 10_000) + " ms");
                }
                Thread.sleep(0, 200_000);
            }
            lat[i] = System.nanoTime() - t0;
            Thread.sleep(200);
        }
        Arrays.sort(lat);
        out.put("mode", "human");
        out.put("edits", edits);
        out.put("quiet_ms", quietMs);
        out.put("p50_ms", Stats.ms(Stats.p50(lat)));
        out.put("p99_ms", Stats.ms(Stats.p99(lat)));
        out.put("max_ms", Stats.ms(lat[lat.length - 1]));
        out.put("p99_over_quiet_ms", Stats.round(Stats.p99(lat) / 1e6 - quietMs));
    }
}
