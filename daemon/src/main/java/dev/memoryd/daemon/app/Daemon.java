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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * A running daemon: holds the root's lock (one daemon per root: {@code .git/memoryd/serving},
 * holding its pid, and {@code .memoryd/daemon.lock}), the service and the socket.
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

    private final Optional<String> adopted;
    private final List<FileChannel> lockChannels;
    private final List<FileLock> locks;
    private final ServingRoot svc;
    private final SocketServer server;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean closed;

    private Daemon(
            List<FileChannel> lockChannels,
            List<FileLock> locks,
            ServingRoot svc,
            SocketServer server,
            Optional<String> adopted) {
        this.adopted = adopted;
        this.lockChannels = lockChannels;
        this.locks = locks;
        this.svc = svc;
        this.server = server;
    }

    /**
     * What this start did to the root beyond serving it, for a person: the replica id given to a
     * plain git clone at its first serve ({@link Memoryd#adoptPlainClone}); empty otherwise.
     */
    public Optional<String> adopted() {
        return adopted;
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
        dev.memoryd.daemon.ReadOnlyRoot.requireRepository(cfg);
        // Before the root's lock file is made: a root served for the first time is adopted below,
        // and a start refused after that lock file exists would never adopt it.
        dev.memoryd.ledger.KeyCheck.loadFor(cfg.keyFile(), cfg.ledgerDir());
        // The root's lock lives in the git directory, which no git command cleans: the state
        // directory goes with a `git clean -fdx`, and with it a lock there would let a second daemon
        // in beside this one. Its name does not end in ".lock", which people clear by hand when git
        // is stuck. The state directory's lock is taken too, so a daemon of a build that knows only
        // that one is kept out as well.
        Path gitLockFile = cfg.root().resolve(".git").resolve("memoryd").resolve("serving");
        // The lock's file stays when a daemon stops (git clean leaves the git directory alone), and
        // nothing else makes it: a root without one was never served.
        boolean firstServe = !Files.exists(gitLockFile, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        Files.createDirectories(gitLockFile.getParent());
        FileChannel gitCh = FileChannel.open(
                gitLockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        FileLock gitLock = tryLock(gitCh);
        if (gitLock == null) {
            gitCh.close();
            throw alreadyServing(cfg, gitLockFile);
        }
        Files.createDirectories(state);
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        // Roots made before init wrote it, and clones, whose .gitignore is whatever the remote holds.
        dev.memoryd.daemon.git.LocalExclude.ensure(
                gitLockFile.getParent().getParent(),
                dev.memoryd.daemon.layout.RootLayout.LOCAL_STATE.toArray(String[]::new));
        Path lockFile = state.resolve("daemon.lock");
        Path pidFile = state.resolve("daemon.pid");
        FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = tryLock(ch);
        if (lock == null) {
            ch.close();
            gitLock.release();
            gitCh.close();
            throw alreadyServing(cfg, pidFile);
        }
        ServingRoot svc = null;
        SocketServer server = null;
        try {
            byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8);
            gitCh.truncate(0);
            gitCh.write(java.nio.ByteBuffer.wrap(pid), 0);
            Files.write(pidFile, pid);
            Optional<String> adopted = firstServe ? Memoryd.adoptPlainClone(cfg) : Optional.empty();
            svc = Memoryd.open(cfg);
            server = new SocketServer(
                    cfg.socket(), new Dispatcher(svc), cfg.maxLineBytes(), cfg.idleTimeout(), cfg.maxConnections());
            server.start();
            if (watch) {
                svc.startWatching();
            }
            return new Daemon(List.of(gitCh, ch), List.of(gitLock, lock), svc, server, adopted);
        } catch (IOException | RuntimeException e) {
            if (server != null) {
                server.close();
            }
            if (svc != null) {
                svc.close();
            }
            lock.release();
            ch.close();
            gitLock.release();
            gitCh.close();
            throw e;
        }
    }

    private static FileLock tryLock(FileChannel ch) throws IOException {
        try {
            return ch.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }

    /** The refusal naming the serving process, its pid read from {@code pidFile} (the lock's own file, or the pid file). */
    private static AlreadyServing alreadyServing(MemorydConfig cfg, Path pidFile) throws IOException {
        String pid = Files.exists(pidFile) ? Files.readString(pidFile).strip() : "";
        if (pid.isEmpty()) {
            pid = "unknown";
        }
        return new AlreadyServing(
                "memoryd is already serving " + cfg.root() + " (pid " + pid + "); stop it first (kill " + pid + ")");
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
            for (int i = locks.size() - 1; i >= 0; i--) {
                locks.get(i).release();
                lockChannels.get(i).close();
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            stopped.countDown();
        }
    }
}
