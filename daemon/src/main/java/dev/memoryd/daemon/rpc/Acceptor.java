package dev.memoryd.daemon.rpc;

import dev.memoryd.daemon.api.ErrorReason;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.UserPrincipal;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.logging.Logger;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * Accepts connections on the selector thread and decides on each: a peer of another uid is
 * refused {@code unauthorized} (SO_PEERCRED), one over the {@link ConnectionLimit} is refused
 * {@code unavailable}; each refusal is one JSON-RPC error line, then the connection is closed.
 * When accepting fails (out of file descriptors, say) it stops accepting for a growing pause
 * ({@link AcceptBackoff}) rather than retrying at once. Not thread-safe: selector thread only.
 */
final class Acceptor {
    private static final Logger LOG = Logger.getLogger(Acceptor.class.getName());
    /** Accepted per selector round, so a connection storm does not hold up reading. */
    private static final int BATCH = 64;

    /** Takes an admitted, non-blocking channel. */
    interface Admit {
        void admit(SocketChannel ch) throws IOException;
    }

    private final ServerSocketChannel server;
    private final SelectionKey key;
    private final UserPrincipal owner;
    private final ConnectionLimit limit;
    private final IntSupplier open;
    private final Admit admit;
    private final AcceptBackoff backoff = new AcceptBackoff(System::nanoTime, 10_000);
    /** nanoTime accepting resumes after a failure; 0 while accepting. */
    private long pausedUntil;

    Acceptor(
            ServerSocketChannel server,
            SelectionKey key,
            UserPrincipal owner,
            ConnectionLimit limit,
            IntSupplier open,
            Admit admit) {
        this.server = server;
        this.key = key;
        this.owner = owner;
        this.limit = limit;
        this.open = open;
        this.admit = admit;
    }

    /** Accepts what is waiting, up to a batch. */
    void acceptReady() {
        for (int i = 0; i < BATCH && pausedUntil == 0; i++) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return; // shutting down
            } catch (IOException e) {
                long pause = backoff.failed(e, LOG::warning);
                pausedUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause);
                key.interestOps(0);
                return;
            }
            if (ch == null) {
                return;
            }
            backoff.succeeded();
            decide(ch);
        }
    }

    private void decide(SocketChannel ch) {
        if (!peerAllowed(ch)) {
            refuse(ch, ErrorReason.UNAUTHORIZED, "peer runs as another user; memoryd serves only its own uid");
        } else if (open.getAsInt() >= limit.effective()) {
            refuse(ch, ErrorReason.UNAVAILABLE, limit.refusal());
        } else {
            try {
                ch.configureBlocking(false);
                admit.admit(ch);
            } catch (IOException e) {
                closeQuietly(ch); // the peer left already
            }
        }
    }

    /** Nanoseconds until accepting resumes after a failure, or {@code Long.MAX_VALUE} when not paused. */
    long pausedFor(long now) {
        return pausedUntil == 0 ? Long.MAX_VALUE : Math.max(0, pausedUntil - now);
    }

    /** Resumes accepting once a pause is over. */
    void resumeIfDue(long now) {
        if (pausedUntil != 0 && now - pausedUntil >= 0) {
            pausedUntil = 0;
            if (key.isValid()) {
                key.interestOps(SelectionKey.OP_ACCEPT);
            }
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

    /** One error line, then close. The channel is still blocking; the line fits the socket buffer. */
    private static void refuse(SocketChannel ch, ErrorReason reason, String message) {
        try (ch) {
            ch.write(ByteBuffer.wrap(
                    (JsonRpc.error(null, reason, message, null) + "\n").getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            // the peer is refused either way
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // it is gone either way
        }
    }
}
