package dev.memoryd.daemon.rpc;

import dev.memoryd.daemon.MemorydConfig;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Newline-delimited JSON-RPC over a Unix-domain stream socket.
 *
 * <p>One selector thread accepts connections and frames request lines on non-blocking channels
 * ({@link Acceptor}, {@link Connection}); requests run on a worker pool, one at a time per
 * connection, so replies keep request order per connection and an idle connection holds no
 * thread. The pool grows with the requests in flight and shrinks when they are done: a slow
 * request or a long poll ({@code slip.recv} with {@code wait_ms}) holds a worker only while it
 * runs and never holds up another connection; since a connection has at most one request
 * running, workers never outnumber the connections the {@link ConnectionLimit} admits.
 *
 * <p>A line longer than {@code maxLineBytes} is answered with a {@code too_large} error and
 * skipped without being buffered; a connection that stalls in the middle of a line for
 * {@code idleTimeout} is closed. Peers whose uid differs from the daemon's are refused at accept
 * (SO_PEERCRED), and so is a connection over the limit. Thread-safe; {@link #close()} stops
 * accepting and removes the socket file, answers every request already read (for at most
 * {@value #DRAIN_MS} ms: a write that runs is answered, not cut off from its reply), then closes
 * every connection.
 */
public final class SocketServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SocketServer.class.getName());
    private static final java.nio.file.LinkOption NOFOLLOW = java.nio.file.LinkOption.NOFOLLOW_LINKS;

    private final Path socketPath;
    private final Function<String, Optional<String>> handler;
    private final int maxLineBytes;
    private final Duration idleTimeout;
    private final int maxConnections;
    private final String ownerName;
    private final Set<Connection> conns = ConcurrentHashMap.newKeySet();
    private final ThreadPoolExecutor workers;
    private ConnectionLimit limit;
    private volatile ServerSocketChannel server;
    private java.nio.file.attribute.UserPrincipal owner;
    /** The socket file's identity when bound (its file key), to tell it was removed or replaced. */
    private Object boundAs;

    private Selector selector;
    private Thread loop;
    private volatile boolean closed;
    /** Closing: no connection is accepted or read from, and the socket file is not bound again. */
    private volatile boolean draining;

    /** How long {@link #close()} waits for the requests already read to be answered. */
    static final long DRAIN_MS = 10_000;

    public SocketServer(
            Path socketPath, Function<String, Optional<String>> handler, int maxLineBytes, Duration idleTimeout) {
        this(socketPath, handler, maxLineBytes, idleTimeout, MemorydConfig.DEFAULT_MAX_CONNECTIONS);
    }

    public SocketServer(
            Path socketPath,
            Function<String, Optional<String>> handler,
            int maxLineBytes,
            Duration idleTimeout,
            int maxConnections) {
        this(socketPath, handler, maxLineBytes, idleTimeout, maxConnections, System.getProperty("user.name"));
    }

    /** {@code ownerName}: the only user whose connections are served (tests use another). */
    SocketServer(
            Path socketPath,
            Function<String, Optional<String>> handler,
            int maxLineBytes,
            Duration idleTimeout,
            String ownerName) {
        this(socketPath, handler, maxLineBytes, idleTimeout, MemorydConfig.DEFAULT_MAX_CONNECTIONS, ownerName);
    }

    private SocketServer(
            Path socketPath,
            Function<String, Optional<String>> handler,
            int maxLineBytes,
            Duration idleTimeout,
            int maxConnections,
            String ownerName) {
        this.ownerName = ownerName;
        this.socketPath = socketPath;
        this.handler = handler;
        this.maxLineBytes = maxLineBytes;
        this.idleTimeout = idleTimeout;
        this.maxConnections = maxConnections;
        AtomicInteger n = new AtomicInteger();
        // No queue: a request goes to an idle worker or a new one, never waits behind another
        // connection's. Bounded in effect by the connection limit (one running request each).
        this.workers = new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                10,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                r -> daemonThread(r, "memoryd-request-" + n.incrementAndGet()));
    }

    /** Binds the socket (replacing a stale socket file) with mode 0600 and starts accepting. */
    public void start() throws IOException {
        limit = ConnectionLimit.forThisProcess(maxConnections);
        LOG.info(limit.describe());
        owner = socketPath.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(ownerName);
        selector = Selector.open();
        Acceptor acceptor = bind();
        loop = daemonThread(() -> serve(acceptor), "memoryd-socket");
        loop.start();
    }

    /** Binds the socket file (its directory made, mode 0700, if it is missing) and registers it. */
    private Acceptor bind() throws IOException {
        Path dir = socketPath.getParent();
        if (dir != null) {
            dev.memoryd.daemon.layout.PrivateDir.ensure(dir);
        }
        Files.deleteIfExists(socketPath); // caller holds the root lock, so any file here is stale
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            try {
                ch.bind(UnixDomainSocketAddress.of(socketPath));
            } catch (java.net.SocketException e) {
                throw tooLong(e);
            }
            Files.setPosixFilePermissions(socketPath, PosixFilePermissions.fromString("rw-------"));
            boundAs = Files.readAttributes(socketPath, java.nio.file.attribute.BasicFileAttributes.class, NOFOLLOW)
                    .fileKey();
            ch.configureBlocking(false);
            SelectionKey key = ch.register(selector, SelectionKey.OP_ACCEPT);
            server = ch;
            return new Acceptor(ch, key, owner, limit, conns::size, this::admit);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Longer than this many bytes a socket path may not fit a Unix socket address (103 on macOS, 107 on Linux). */
    private static final int SOCKET_PATH_BYTES = 103;

    /** {@code e} (the bind's failure), saying why and what to do when the socket's path is too long to bind. */
    private java.io.IOException tooLong(java.net.SocketException e) {
        int bytes = socketPath.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes <= SOCKET_PATH_BYTES) {
            return e;
        }
        return new java.io.IOException(
                "the socket path " + socketPath + " is too long for a Unix socket (" + bytes
                        + " bytes; the system takes at most 107 on Linux, 103 on macOS): serve the root from a shorter"
                        + " path, e.g. through a symbolic link to it (bind: " + e.getMessage() + ")",
                e);
    }

    /**
     * The acceptor to go on with: {@code current}, or a new one on a socket bound again when the
     * socket file is gone or is no longer the one bound (a {@code git clean -fdx} removes the whole
     * state directory): the daemon keeps the root's lock and its clients must find it again, not
     * be told no daemon serves. Selector thread only.
     */
    private Acceptor rebindIfGone(Acceptor current) {
        Object now;
        try {
            now = Files.readAttributes(socketPath, java.nio.file.attribute.BasicFileAttributes.class, NOFOLLOW)
                    .fileKey();
        } catch (IOException gone) {
            now = null;
        }
        if (now != null && now.equals(boundAs)) {
            return current;
        }
        try {
            ServerSocketChannel old = server;
            Acceptor fresh = bind();
            old.close();
            LOG.warning("the socket file " + socketPath + " was removed or replaced while memoryd served it (a git"
                    + " clean -x?); it is bound again");
            return fresh;
        } catch (IOException e) {
            LOG.log(
                    Level.WARNING,
                    "the socket file " + socketPath + " is gone and could not be bound again; retrying",
                    e);
            return current;
        }
    }

    /** The connection limit in force (after {@link #start()}). */
    public ConnectionLimit limit() {
        return limit;
    }

    private void admit(SocketChannel ch) throws IOException {
        Connection c = new Connection(ch, handler, workers, maxLineBytes, conns::remove);
        conns.add(c);
        try {
            c.register(selector);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** The selector thread: accepts, reads, finishes writes, closes stalled connections. */
    private void serve(Acceptor first) {
        Acceptor acceptor = first;
        ByteBuffer scratch = ByteBuffer.allocateDirect(64 * 1024);
        long scanEvery = TimeUnit.MILLISECONDS.toNanos(Math.max(50, idleTimeout.toMillis() / 4));
        long nextScan = System.nanoTime() + scanEvery;
        while (!closed) {
            long now = System.nanoTime();
            long wait = Math.min(nextScan - now, acceptor.pausedFor(now));
            try {
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)));
            } catch (ClosedSelectorException e) {
                return;
            } catch (IOException e) {
                LOG.log(Level.WARNING, "waiting for socket events failed; retrying", e);
                continue;
            }
            for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey k = it.next();
                it.remove();
                try {
                    if (k.attachment() instanceof Connection c) {
                        if (k.isWritable()) {
                            c.writable();
                        }
                        if (k.isValid() && k.isReadable()) {
                            c.readable(scratch);
                        }
                    } else if (k.isAcceptable()) {
                        acceptor.acceptReady();
                    }
                } catch (CancelledKeyException e) {
                    // closed meanwhile by a worker or the watchdog
                }
            }
            now = System.nanoTime();
            acceptor.resumeIfDue(now);
            if (now - nextScan >= 0) {
                for (Connection c : conns) {
                    if (c.stalled(now, idleTimeout.toNanos())) {
                        c.close();
                    }
                }
                if (!closed && !draining) {
                    acceptor = rebindIfGone(acceptor);
                }
                nextScan = now + scanEvery;
            }
        }
    }

    /** Number of open client connections. */
    public int connections() {
        return conns.size();
    }

    @Override
    public void close() {
        draining = true;
        try {
            if (server != null) {
                server.close();
            }
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing server socket", e);
        }
        try {
            Files.deleteIfExists(socketPath); // a client that comes now hears at once that no daemon serves
        } catch (IOException e) {
            LOG.log(Level.FINE, "removing socket file", e);
        }
        if (loop != null && loop.isAlive()) {
            // A request already read may be a write the writer completes: its client hears that it did.
            for (Connection c : conns) {
                c.finishAndClose();
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MS);
            while (!conns.isEmpty() && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        closed = true;
        workers.shutdown(); // requests running now finish; no new ones start
        for (Connection c : conns) {
            c.close();
        }
        if (selector != null) {
            selector.wakeup();
            try {
                if (loop != null) { // null when start failed before the loop began
                    loop.join(5_000);
                }
                selector.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                LOG.log(Level.FINE, "closing selector", e);
            }
        }
        for (Connection c : conns) {
            c.close(); // admitted while the loop was stopping
        }
        try {
            Files.deleteIfExists(socketPath);
        } catch (IOException e) {
            LOG.log(Level.FINE, "removing socket file", e);
        }
    }

    private static Thread daemonThread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
