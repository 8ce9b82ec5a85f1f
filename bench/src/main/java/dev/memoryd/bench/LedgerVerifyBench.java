package dev.memoryd.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.ReadOnlyRoot;
import dev.memoryd.ledger.VerifyResult;

/**
 * {@code bench --verify}: ledger verify throughput over what the write run left, in this JVM with
 * the daemon stopped. Best of three passes; the first pass (JIT warm-up, a cold page cache) is
 * reported apart.
 */
final class LedgerVerifyBench {
    private LedgerVerifyBench() {}

    static void run(MemorydConfig cfg, ObjectNode out) throws Exception {
        try (ReadOnlyRoot m = Memoryd.openReadOnly(cfg)) {
            long bytes = Disk.size(cfg.ledgerDir());
            double first = 0;
            double best = Double.MAX_VALUE;
            VerifyResult v = null;
            for (int i = 0; i < 3; i++) {
                long t = System.nanoTime();
                v = m.verify();
                double s = (System.nanoTime() - t) / 1e9;
                first = i == 0 ? s : first;
                best = Math.min(best, s);
            }
            out.put("verify_ok", v.ok());
            out.put("verify_lines", v.lines());
            out.put("verify_bytes", bytes);
            out.put("verify_lines_per_s", Stats.round(v.lines() / best));
            out.put("verify_mb_per_s", Stats.round(bytes / 1e6 / best));
            out.put("verify_first_pass_lines_per_s", Stats.round(v.lines() / first));
        }
    }
}
