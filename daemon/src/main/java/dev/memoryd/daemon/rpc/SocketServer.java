package dev.memoryd.daemon.rpc;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * Newline-delimited JSON-RPC over a Unix-domain stream socket.
 *
 * <p>One thread per connection reads a line, hands it to the handler and writes the reply, so
 * replies keep request order per connection. A line longer than {@code maxLineBytes} is answered
 * with a {@code too_large} error and skipped without being buffered; a connection that stalls in
 * the middle of a line for {@code idleTimeout} is closed. Peers whose uid differs from the
 * daemon's are refused at accept (SO_PEERCRED). Thread-safe; {@link #close()} stops accepting,
 * closes every connection and removes the socket file.
 */
public final class SocketServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(SocketServer.class.getName());

  private final Path socketPath;
  private final Function<String, Optional<String>> handler;
  private final int maxLineBytes;
  private final Duration idleTimeout;
  private final Set<Conn> conns = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService watchdog =
      Executors.newSingleThreadScheduledExecutor(r -> daemonThread(r, "memoryd-idle-watchdog"));
  private ServerSocketChannel server;
  private UserPrincipal owner;
  private final String ownerName;
  private volatile boolean closed;

  public SocketServer(Path socketPath, Function<String, Optional<String>> handler,
      int maxLineBytes, Duration idleTimeout) {
    this(socketPath, handler, maxLineBytes, idleTimeout, System.getProperty("user.name"));
  }

  /** {@code ownerName}: the only user whose connections are served (tests use another). */
  SocketServer(Path socketPath, Function<String, Optional<String>> handler, int maxLineBytes,
      Duration idleTimeout, String ownerName) {
    this.ownerName = ownerName;
    this.socketPath = socketPath;
    this.handler = handler;
    this.maxLineBytes = maxLineBytes;
    this.idleTimeout = idleTimeout;
  }

  /** Binds the socket (replacing a stale socket file) with mode 0600 and starts accepting. */
  public void start() throws IOException {
    Files.deleteIfExists(socketPath); // caller holds the root lock, so any file here is stale
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socketPath));
    Files.setPosixFilePermissions(socketPath, PosixFilePermissions.fromString("rw-------"));
    owner = socketPath.getFileSystem().getUserPrincipalLookupService()
        .lookupPrincipalByName(ownerName);
    Thread t = new Thread(this::acceptLoop, "memoryd-accept");
    t.setDaemon(true);
    t.start();
    long period = Math.max(50, idleTimeout.toMillis() / 4);
    watchdog.scheduleAtFixedRate(this::closeStalled, period, period, TimeUnit.MILLISECONDS);
  }

  private void acceptLoop() {
    while (!closed) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException e) {
        if (!closed) {
          LOG.log(Level.WARNING, "accept failed", e);
        }
        continue;
      }
      if (!peerAllowed(ch)) {
        refuse(ch);
        continue;
      }
      Conn c = new Conn(ch);
      conns.add(c);
      Thread t = new Thread(c::run, "memoryd-conn");
      t.setDaemon(true);
      t.start();
    }
  }

  private boolean peerAllowed(SocketChannel ch) {
    try {
      UnixDomainPrincipal p = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
      return p != null && p.user().equals(owner);
    } catch (IOException | UnsupportedOperationException e) {
      return false; // cannot establish who the peer is: refuse rather than trust
    }
  }

  private static void refuse(SocketChannel ch) {
    try (ch) {
      ch.write(ByteBuffer.wrap((JsonRpc.error(null, dev.memoryd.daemon.ErrorReason.UNAUTHORIZED,
          "peer runs as another user; memoryd serves only its own uid", null) + "\n")
          .getBytes(StandardCharsets.UTF_8)));
    } catch (IOException e) {
      // the peer is refused either way
    }
  }

  private void closeStalled() {
    long now = System.nanoTime();
    for (Conn c : conns) {
      if (c.partialSince != 0 && now - c.partialSince > idleTimeout.toNanos()) {
        c.close();
      }
    }
  }

  /** Number of open client connections. */
  public int connections() {
    return conns.size();
  }

  @Override
  public void close() {
    closed = true;
    watchdog.shutdownNow();
    try {
      if (server != null) {
        server.close();
      }
    } catch (IOException e) {
      LOG.log(Level.FINE, "closing server socket", e);
    }
    for (Conn c : conns) {
      c.close();
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

  private final class Conn {
    private final SocketChannel ch;
    /** nanoTime when the current unfinished line started arriving; 0 when between lines. */
    volatile long partialSince;

    Conn(SocketChannel ch) {
      this.ch = ch;
    }

    void run() {
      ByteBuffer in = ByteBuffer.allocate(64 * 1024);
      LineBuffer line = new LineBuffer(maxLineBytes);
      try {
        while (true) {
          int n = ch.read(in);
          if (n < 0) {
            return;
          }
          in.flip();
          while (in.hasRemaining()) {
            byte b = in.get();
            if (b == '\n') {
              partialSince = 0;
              String reply;
              if (line.overflowed()) {
                reply = JsonRpc.error(null, dev.memoryd.daemon.ErrorReason.TOO_LARGE,
                    "request line exceeds " + maxLineBytes + " bytes", null);
              } else {
                String text = line.text();
                reply = text == null
                    ? JsonRpc.error(null, dev.memoryd.daemon.ErrorReason.INVALID_REQUEST,
                        "request is not valid UTF-8", null)
                    : handler.apply(text).orElse(null);
              }
              line.reset();
              if (reply != null) {
                write(reply);
              }
            } else {
              if (partialSince == 0) {
                partialSince = System.nanoTime();
              }
              line.add(b);
            }
          }
          in.clear();
        }
      } catch (IOException e) {
        // peer went away or was closed by the watchdog: nothing to answer
      } finally {
        close();
      }
    }

    private void write(String reply) throws IOException {
      ByteBuffer out = ByteBuffer.wrap((reply + "\n").getBytes(StandardCharsets.UTF_8));
      while (out.hasRemaining()) {
        ch.write(out);
      }
    }

    void close() {
      conns.remove(this);
      try {
        ch.close();
      } catch (IOException e) {
        LOG.log(Level.FINE, "closing connection", e);
      }
    }
  }

  /** Accumulates one line up to a limit, then only counts. */
  static final class LineBuffer {
    private final int max;
    private byte[] buf = new byte[1024];
    private int len;
    private boolean overflow;

    LineBuffer(int max) {
      this.max = max;
    }

    void add(byte b) {
      if (overflow) {
        return;
      }
      if (len == max) {
        overflow = true;
        buf = new byte[1024]; // drop what was buffered: the line is refused anyway
        len = 0;
        return;
      }
      if (len == buf.length) {
        buf = java.util.Arrays.copyOf(buf, Math.min(max, buf.length * 2));
      }
      buf[len++] = b;
    }

    boolean overflowed() {
      return overflow;
    }

    /** The line decoded strictly as UTF-8, or null if it is not valid UTF-8. */
    String text() {
      int end = len > 0 && buf[len - 1] == '\r' ? len - 1 : len;
      try {
        return StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(buf, 0, end)).toString();
      } catch (CharacterCodingException e) {
        return null;
      }
    }

    void reset() {
      len = 0;
      overflow = false;
      if (buf.length > 64 * 1024) {
        buf = new byte[1024];
      }
    }
  }
}
