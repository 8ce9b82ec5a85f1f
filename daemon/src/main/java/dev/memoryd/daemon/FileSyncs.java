package dev.memoryd.daemon;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a {@link WorkTree}'s per-file I/O steps (fsyncs, a directory's renames) concurrently on a
 * pool of {@code memoryd-fsync} threads: concurrent fsyncs of one batch's files share the file
 * system's journal commits, where one after the other each paid for its own.
 *
 * <p>Thread-safe. {@link #forEach} returns once every step has finished, throwing the first
 * step's failure.
 */
final class FileSyncs {
    /** One I/O step on one item. */
    interface IoStep<T> {
        void run(T item) throws IOException;
    }

    private final ExecutorService syncers = Executors.newFixedThreadPool(16, r -> {
        Thread t = new Thread(r, "memoryd-fsync");
        t.setDaemon(true);
        return t;
    });

    /** Runs one I/O step per item (a file, a directory), concurrently when there are several. */
    <T> void forEach(Collection<T> items, IoStep<T> step) throws IOException {
        if (items.size() == 1) {
            step.run(items.iterator().next());
            return;
        }
        List<Future<?>> fs = new ArrayList<>();
        for (T m : items) {
            fs.add(syncers.submit(() -> {
                step.run(m);
                return null;
            }));
        }
        IOException first = null;
        for (Future<?> f : fs) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted during file I/O");
            } catch (ExecutionException e) {
                if (first == null) {
                    first = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Forces a file's content. */
    static void fsync(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            ch.force(false);
        }
    }

    /** Forces a directory's entries. */
    static void fsyncDir(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
