package dev.memoryd.daemon.write;

import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Journal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Undoes a batch that failed before its ref move published it: its journal is cleared (forced to
 * disk), each file it put in place gets back what it held before, then the ledger lines it
 * appended are cut off (forced to disk), so a restart has nothing of it to redo. A file that no longer holds the batch's bytes was saved by
 * someone else meanwhile and is left alone; then what the batch's mutations did to the chain
 * itself (a key rotation's switch of keys) is put back. Idempotent: retried until it succeeds.
 *
 * <p>Runs on the writer thread, with no other I/O of the batch still under way.
 */
final class BatchRollback {
    private final WritePipeline.FileStore files;
    private final Chain chain;
    private final Journal journal;
    private final long seq;
    private final Map<String, byte[]> written;
    private final Map<String, Before> before;
    private final java.util.List<Step> after = new java.util.ArrayList<>();

    /** What a path held before the batch (empty: no file), made into bytes only when it is put back. */
    interface Before {
        Optional<byte[]> bytes();
    }

    /** What else undoing the batch must put back, once its lines are cut off; idempotent. */
    interface Step {
        void run() throws IOException;
    }

    /**
     * @param journal where the batch's lines were forced before the segment; null when none is kept
     * @param seq the chain's last line before the batch
     * @param written the bytes the batch puts at each path
     * @param before what each of those paths held before (empty: no file)
     */
    BatchRollback(
            WritePipeline.FileStore files,
            Chain chain,
            Journal journal,
            long seq,
            Map<String, byte[]> written,
            Map<String, Before> before) {
        this.files = files;
        this.chain = chain;
        this.journal = journal;
        this.seq = seq;
        this.written = written;
        this.before = before;
    }

    void run() throws IOException {
        if (journal != null) {
            journal.clear(true);
        }
        chain.discardPrepared();
        Map<String, byte[]> restore = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> w : written.entrySet()) {
            Path f = files.root().resolve(w.getKey());
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                    || !Arrays.equals(Files.readAllBytes(f), w.getValue())) {
                continue; // never placed, or someone else's bytes now
            }
            Before was = before.get(w.getKey());
            Optional<byte[]> old = was == null ? Optional.empty() : was.bytes();
            if (old.isPresent()) {
                restore.put(w.getKey(), old.get());
            } else {
                Files.delete(f);
                try (java.nio.channels.FileChannel dir =
                        java.nio.channels.FileChannel.open(f.getParent(), java.nio.file.StandardOpenOption.READ)) {
                    dir.force(true);
                }
            }
        }
        files.writeAll(restore);
        chain.truncateAfter(seq);
        for (int i = after.size() - 1; i >= 0; i--) {
            after.get(i).run();
        }
    }

    /** Adds {@code step} to what {@link #run} undoes after the lines (steps run newest first). */
    void andThen(Step step) {
        after.add(step);
    }
}
