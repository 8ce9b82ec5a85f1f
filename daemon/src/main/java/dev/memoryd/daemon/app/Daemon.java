package dev.memoryd.daemon.app;

import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.rpc.Dispatcher;
import dev.memoryd.daemon.rpc.SocketServer;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CountDownLatch;

/**
 * A running daemon: holds the root's lock (one daemon per root), the service and the socket.
 * {@link #close()} stops accepting, lets the writer finish what it holds, and releases the lock;
 * it is what SIGTERM runs.
 */
public final class Daemon implements AutoCloseable {
    /** Thrown when another live process already serves the root. */
    public static final class AlreadyServing extends IOException {
        AlreadyServing(String msg) {
            super(msg);
        }
    }

    private final FileChannel lockChannel;
    private final FileLock lock;
    private final ServingRoot svc;
    private final SocketServer server;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean closed;

    private Daemon(FileChannel lockChannel, FileLock lock, ServingRoot svc, SocketServer server) {
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.svc = svc;
        this.server = server;
    }

    /** Starts serving, watching the working tree for humans' edits. */
    public static Daemon start(MemorydConfig cfg) throws IOException {
        return start(cfg, true);
    }

    /**
     * Starts serving; with {@code watch} false, humans' edits are captured only when a write
     * touches their file or a capture is asked for (tests that script edits step by step).
     */
    public static Daemon start(MemorydConfig cfg, boolean watch) throws IOException {
        Path state = cfg.stateDir();
        if (!Files.isDirectory(cfg.root().resolve(".git"))) {
            throw new IllegalStateException("no memory repository at " + cfg.root()
                    + "; create one with 'bin/memoryd init --root " + cfg.root() + "'");
        }
        Files.createDirectories(state);
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        Path lockFile = state.resolve("daemon.lock");
        Path pidFile = state.resolve("daemon.pid");
        FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            ch.close();
            String pid = Files.exists(pidFile) ? Files.readString(pidFile).strip() : "unknown";
            throw new AlreadyServing("memoryd is already serving " + cfg.root() + " (pid " + pid
                    + "); stop it first (kill " + pid + ")");
        }
        ServingRoot svc = null;
        SocketServer server = null;
        try {
            Files.writeString(pidFile, ProcessHandle.current().pid() + "\n", StandardCharsets.UTF_8);
            svc = Memoryd.open(cfg);
            server = new SocketServer(
                    cfg.socket(), new Dispatcher(svc), cfg.maxLineBytes(), cfg.idleTimeout(), cfg.maxConnections());
            server.start();
            if (watch) {
                svc.startWatching();
            }
            return new Daemon(ch, lock, svc, server);
        } catch (IOException | RuntimeException e) {
            if (server != null) {
                server.close();
            }
            if (svc != null) {
                svc.close();
            }
            lock.release();
            ch.close();
            throw e;
        }
    }

    public ServingRoot service() {
        return svc;
    }

    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.close();
            svc.close();
            Files.deleteIfExists(svc.config().stateDir().resolve("daemon.pid"));
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            stopped.countDown();
        }
    }
}
