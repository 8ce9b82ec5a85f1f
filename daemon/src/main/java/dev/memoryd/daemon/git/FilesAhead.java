package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Empty files made ahead of need, on a thread of their own, for a batch's pack and pack index to
 * be written into and then renamed into {@code objects/pack}. Making a file allocates an inode, and
 * on this project's machines (ext4) an allocation scans past the inodes freed lately: 0.2-1 ms
 * each, two per batch, on the writer's way to the reply before this pool. A file taken here is
 * opened without creating anything.
 *
 * <p>The files live in {@code <git-dir>/memoryd/ahead/}, named {@code <pid>-<n>.tmp}, so that no
 * git command sees a stray file among the packs; files another process left there are removed
 * once their process is gone. Nothing is made before the first {@link #take}: a store opened to
 * read never writes here.
 *
 * <p><b>Thread-safety:</b> {@link #take} may be called from any thread; the files are made on
 * {@code memoryd-files-ahead}, which ends when idle.
 */
final class FilesAhead implements AutoCloseable {
    /** Files kept ready: a batch takes three (its pack's keep file, the pack, its index), and a failed flush may take more. */
    private static final int READY = 6;

    private static final AtomicLong SEQ = new AtomicLong();

    private final Path dir;
    private final String prefix = ProcessHandle.current().pid() + "-";
    private final ConcurrentLinkedQueue<Path> ready = new ConcurrentLinkedQueue<>();
    /** Files ready or being made: refills stop at {@link #READY}. */
    private final AtomicInteger promised = new AtomicInteger();

    private final ThreadPoolExecutor maker =
            new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "memoryd-files-ahead");
                t.setDaemon(true);
                return t;
            });

    private volatile boolean started;
    private volatile boolean closed;

    /** Where the packs go, and with them the keep files a flush puts beside its pack (see {@link BatchPackInserter}). */
    private final Path packDir;

    FilesAhead(Path gitDir) {
        this.dir = gitDir.resolve("memoryd").resolve("ahead");
        this.packDir = gitDir.resolve("objects").resolve("pack");
    }

    /**
     * An empty regular file made ahead, to be opened for writing (without following a link) and
     * renamed away or deleted; null when none is ready yet, and the caller makes its own. Asks for
     * the files taken to be made again.
     */
    Path take() {
        if (!started) {
            started = true;
            run(this::removeLeftovers);
        }
        Path p = ready.poll();
        if (p != null) {
            promised.decrementAndGet();
        }
        while (!closed && promised.get() < READY) {
            promised.incrementAndGet();
            if (!run(this::makeOne)) {
                promised.decrementAndGet();
                break;
            }
        }
        return p;
    }

    /** Hands {@code task} to the maker thread; false once the pool is closed (a flush racing the store's close). */
    private boolean run(Runnable task) {
        try {
            maker.execute(task);
            return true;
        } catch (java.util.concurrent.RejectedExecutionException closedMeanwhile) {
            return false;
        }
    }

    private void makeOne() {
        boolean made = false;
        try {
            if (closed) {
                return;
            }
            Files.createDirectories(dir);
            Path p = dir.resolve(prefix + SEQ.incrementAndGet() + ".tmp");
            Files.createFile(p);
            ready.add(p);
            made = true;
        } catch (FileAlreadyExistsException e) {
            // a name of this process's used already: the next refill takes another
        } catch (IOException e) {
            // A full disk, a read-only directory: the writer makes its own files and meets the
            // cause itself, where it is reported.
        } finally {
            if (!made) {
                promised.decrementAndGet();
            }
        }
    }

    /**
     * Deletes {@code p} on the files' thread, off the caller's way (a deletion frees an inode, which
     * costs as much as making one); at once when that thread has stopped.
     */
    void discard(Path p) throws IOException {
        if (!run(() -> {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                // a keep file left behind is removed at the next start (its process is gone)
            }
        })) {
            Files.deleteIfExists(p);
        }
    }

    /**
     * Removes files of processes that are gone (a killed daemon's): files made ahead, and the keep
     * files of packs whose batch never got to remove them (git's gc would keep those packs for good).
     */
    private void removeLeftovers() {
        removeLeftoverKeeps();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String n = p.getFileName().toString();
                int dash = n.indexOf('-');
                long pid;
                try {
                    pid = dash > 0 ? Long.parseLong(n.substring(0, dash)) : -1;
                } catch (NumberFormatException e) {
                    pid = -1;
                }
                if (pid >= 0 && !n.startsWith(prefix) && ProcessHandle.of(pid).isEmpty()) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            // An empty file left behind costs nothing but its name: the next start tries again.
        }
    }

    private void removeLeftoverKeeps() {
        if (!Files.isDirectory(packDir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.list(packDir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (!p.getFileName().toString().endsWith(".keep") || Files.size(p) > 200) {
                    continue;
                }
                String text = Files.readString(p, java.nio.charset.StandardCharsets.UTF_8);
                if (!text.startsWith(BatchPackInserter.KEEP_PREFIX)) {
                    continue; // a keep of git's or a human's: theirs to remove
                }
                String[] words =
                        text.substring(BatchPackInserter.KEEP_PREFIX.length()).split(" ", 2);
                try {
                    long pid = Long.parseLong(words[0].strip());
                    if (pid != ProcessHandle.current().pid()
                            && ProcessHandle.of(pid).isEmpty()) {
                        Files.deleteIfExists(p);
                    }
                } catch (NumberFormatException e) {
                    // not one memoryd wrote
                }
            }
        } catch (IOException e) {
            // A keep file left behind keeps one pack from git's gc: the next start tries again.
        }
    }

    /** Stops making files and removes those not taken. */
    @Override
    public void close() {
        closed = true;
        maker.shutdown();
        try {
            maker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Path p; (p = ready.poll()) != null; ) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                // left for the next start, which removes a gone process's files
            }
        }
    }
}
