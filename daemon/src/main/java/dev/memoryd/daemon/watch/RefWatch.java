package dev.memoryd.daemon.watch;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashSet;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Says when a branch ref may have moved, without polling: a watch (inotify on Linux) of the git
 * directory (where {@code packed-refs}, {@code HEAD} and the index are renamed into place) and of
 * every directory from {@code refs/} down to the one holding the loose ref. Any event there, an
 * overflow included, runs {@code onChange}; it only says "look", the caller reads the ref and
 * coalesces. A directory on the way to the ref that appears later is watched from the event that
 * created it. One thread, {@code memoryd-watch-ref}, blocked on the watch while nothing happens.
 */
final class RefWatch implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RefWatch.class.getName());

    private final Path gitDir;
    private final Path refDir;
    private final Runnable onChange;
    private final Set<Path> watched = new HashSet<>();
    private WatchService service;
    private volatile Throwable failure;

    RefWatch(Path gitDir, String branchRef, Runnable onChange) {
        this.gitDir = gitDir;
        this.refDir = gitDir.resolve(branchRef).getParent();
        this.onChange = onChange;
    }

    void start() throws IOException {
        service = FileSystems.getDefault().newWatchService();
        registerPath();
        Thread thread = new Thread(this::run, "memoryd-watch-ref");
        thread.setDaemon(true);
        thread.start();
    }

    /** Registers the git directory and each existing directory from it down to the ref's. */
    private void registerPath() throws IOException {
        for (Path d = refDir; d != null && d.startsWith(gitDir); d = d.getParent()) {
            if (!watched.contains(d) && Files.isDirectory(d)) {
                d.register(
                        service,
                        StandardWatchEventKinds.ENTRY_CREATE,
                        StandardWatchEventKinds.ENTRY_MODIFY,
                        StandardWatchEventKinds.ENTRY_DELETE);
                watched.add(d);
            }
        }
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = service.take();
                key.pollEvents();
                key.reset();
                if (watched.size() < refDir.getNameCount() - gitDir.getNameCount() + 1) {
                    registerPath();
                }
                onChange.run();
            }
        } catch (ClosedWatchServiceException | InterruptedException closed) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            failure = e; // the caller restarts it: a dead watch would leave git commits to the next rescan
            onChange.run();
        }
    }

    /** Why the watch stopped, or null while it runs (or after {@link #close}). */
    Throwable failure() {
        return failure;
    }

    @Override
    public void close() {
        try {
            if (service != null) {
                service.close();
            }
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing the ref watch", e);
        }
    }
}
