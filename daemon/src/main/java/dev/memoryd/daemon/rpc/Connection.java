package dev.memoryd.daemon.rpc;

import dev.memoryd.daemon.api.ErrorReason;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One client connection on a non-blocking channel. The selector thread frames request lines as
 * bytes arrive ({@link #readable}); the requests then run one at a time on the worker pool, each
 * reply written before the next request runs, so replies keep request order. While a request
 * runs the connection holds no thread of its own, and an idle one holds none at all.
 *
 * <p>Back-pressure: reading stops while 16 lines or a full line's worth of bytes wait, and the next
 * request waits until the socket has taken the previous reply, so a client that sends without
 * reading cannot make the daemon buffer without bound. A line over {@code maxLineBytes} is
 * answered {@code too_large} without being buffered. The connection counts against the limit
 * until it is closed and its running request, if any, has finished ({@code released}).
 */
final class Connection {
    private static final Logger LOG = Logger.getLogger(Connection.class.getName());
    private static final int MAX_WAITING = 16;

    /** A framed request line, or the reply it gets without reaching the handler. */
    private record Request(String text, String reply) {
        long size() {
            return text != null ? text.length() : 0;
        }
    }

    private final SocketChannel ch;
    private final Function<String, Optional<String>> handler;
    private final Executor workers;
    private final int maxLineBytes;
    private final Consumer<Connection> released;
    private final LineBuffer line;
    private final String id = RequestContext.newConnectionId();
    private SelectionKey key;

    // guarded by this
    private final ArrayDeque<Request> waiting = new ArrayDeque<>();
    private long waitingBytes;
    private boolean running; // a drain task is submitted or executing
    private ByteBuffer unsent; // the rest of a reply the socket has not taken yet
    private boolean ended; // the client will send nothing more
    private boolean readPaused;
    private boolean closed;
    private boolean isReleased;

    /** nanoTime the unfinished line started arriving; 0 between lines. Selector thread only. */
    private long lineStart;
    /** nanoTime a request here last finished: a stall is not counted before it. */
    private volatile long idleSince = System.nanoTime();

    Connection(
            SocketChannel ch,
            Function<String, Optional<String>> handler,
            Executor workers,
            int maxLineBytes,
            Consumer<Connection> released) {
        this.ch = ch;
        this.handler = handler;
        this.workers = workers;
        this.maxLineBytes = maxLineBytes;
        this.released = released;
        this.line = new LineBuffer(maxLineBytes);
    }

    /** Registers for reading with {@code selector}; the channel must be non-blocking. */
    void register(Selector selector) throws IOException {
        key = ch.register(selector, SelectionKey.OP_READ, this);
    }

    /** Selector thread: reads what arrived into {@code scratch} and queues each complete line. */
    void readable(ByteBuffer scratch) {
        int n;
        try {
            n = ch.read(scratch.clear());
        } catch (IOException e) {
            close(); // the peer reset the connection: nothing to answer
            return;
        }
        if (n < 0) {
            end();
            return;
        }
        scratch.flip();
        while (scratch.hasRemaining()) {
            byte b = scratch.get();
            if (b == '\n') {
                lineStart = 0;
                queue(framed());
            } else {
                if (lineStart == 0) {
                    lineStart = System.nanoTime();
                }
                line.add(b);
            }
        }
    }

    private Request framed() {
        Request r;
        if (line.overflowed()) {
            r = new Request(
                    null,
                    JsonRpc.error(
                            null, ErrorReason.TOO_LARGE, "request line exceeds " + maxLineBytes + " bytes", null));
        } else {
            String text = line.text();
            r = text != null
                    ? new Request(text, null)
                    : new Request(
                            null, JsonRpc.error(null, ErrorReason.INVALID_REQUEST, "request is not valid UTF-8", null));
        }
        line.reset();
        return r;
    }

    private void queue(Request r) {
        synchronized (this) {
            if (closed) {
                return;
            }
            waiting.add(r);
            waitingBytes += r.size();
            if (!readPaused && (waiting.size() >= MAX_WAITING || waitingBytes >= maxLineBytes)) {
                readPaused = true;
                updateInterest();
            }
            if (running || unsent != null) {
                return;
            }
            running = true;
        }
        submitDrain();
    }

    private void submitDrain() {
        try {
            workers.execute(this::drain);
        } catch (RejectedExecutionException e) {
            synchronized (this) {
                running = false;
            }
            close(); // the server is shutting down
        }
    }

    /** Worker: runs waiting requests in order until none is left or a reply is not fully sent. */
    private void drain() {
        while (true) {
            Request r;
            boolean resume = false;
            boolean finished;
            synchronized (this) {
                r = closed ? null : waiting.poll();
                if (r == null) {
                    running = false;
                    idleSince = System.nanoTime();
                    finished = ended && !closed;
                    if (closed) {
                        releaseLocked();
                    }
                } else {
                    finished = false;
                    waitingBytes -= r.size();
                    if (readPaused && waiting.size() < MAX_WAITING / 2 && waitingBytes < maxLineBytes / 2) {
                        readPaused = false;
                        updateInterest();
                        resume = true;
                    }
                }
            }
            if (r == null) {
                if (finished) {
                    close(); // the client half-closed and has every reply
                }
                return;
            }
            if (resume) {
                key.selector().wakeup();
            }
            String reply = r.reply() != null ? r.reply() : handle(r.text());
            if (reply != null && !send(reply)) {
                return;
            }
        }
    }

    private String handle(String text) {
        try {
            return RequestContext.on(id, () -> handler.apply(text)).orElse(null);
        } catch (RuntimeException e) {
            // a handler bug: this client's connection ends, as a thread of its own would have
            LOG.log(Level.WARNING, "request handler failed; closing the connection", e);
            close();
            return null;
        }
    }

    /** Worker: writes a reply; false when the socket did not take it all (the selector finishes it). */
    private boolean send(String reply) {
        ByteBuffer out = ByteBuffer.wrap((reply + "\n").getBytes(StandardCharsets.UTF_8));
        try {
            while (out.hasRemaining() && ch.write(out) > 0) {
                // the socket takes what fits
            }
        } catch (IOException e) {
            closeFromDrain();
            return false;
        }
        if (!out.hasRemaining()) {
            return true;
        }
        synchronized (this) {
            running = false;
            if (closed) {
                releaseLocked();
                return false;
            }
            unsent = out;
            updateInterest();
        }
        key.selector().wakeup();
        return false;
    }

    private void closeFromDrain() {
        close();
        synchronized (this) {
            running = false;
            releaseLocked();
        }
    }

    /** Selector thread: the socket has room for the rest of a reply. */
    void writable() {
        boolean more;
        synchronized (this) {
            if (unsent == null || closed) {
                return;
            }
            try {
                ch.write(unsent);
            } catch (IOException e) {
                unsent = null;
                close();
                return;
            }
            if (unsent.hasRemaining()) {
                return;
            }
            unsent = null;
            updateInterest();
            more = !waiting.isEmpty();
            if (more) {
                running = true;
            } else {
                idleSince = System.nanoTime();
                if (!ended) {
                    return;
                }
            }
        }
        if (more) {
            submitDrain();
        } else {
            close(); // the client half-closed and has every reply
        }
    }

    /** Selector thread: the client sent EOF; what it sent before is still answered. */
    private void end() {
        finishAndClose(); // as a daemon that stops: nothing more is read, what was read is answered
    }

    /**
     * Any thread: reads nothing more; the requests already read are answered in order, then the
     * connection closes (at once when none is left). What the client sends from now on is never
     * read, so never run.
     */
    void finishAndClose() {
        synchronized (this) {
            ended = true;
            updateInterest();
            if (running || unsent != null || !waiting.isEmpty()) {
                return;
            }
        }
        close();
    }

    /**
     * Whether the client has stalled in the middle of a line for longer than {@code timeoutNanos}
     * while the daemon was waiting for it (time spent on its requests does not count).
     */
    boolean stalled(long now, long timeoutNanos) {
        if (lineStart == 0) {
            return false;
        }
        synchronized (this) {
            if (running || unsent != null || !waiting.isEmpty()) {
                return false;
            }
        }
        return now - Math.max(lineStart, idleSince) > timeoutNanos;
    }

    /** Closes the channel; any thread, any number of times. */
    void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            waiting.clear();
            unsent = null;
            if (!running) {
                releaseLocked();
            }
        }
        try {
            ch.close();
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing a connection", e);
        }
        if (key != null) {
            key.selector().wakeup(); // the selector deregisters the channel, which frees its descriptor
        }
    }

    private void releaseLocked() {
        if (!isReleased) {
            isReleased = true;
            released.accept(this);
        }
    }

    private void updateInterest() {
        if (key == null || closed) {
            return;
        }
        int ops = (ended || readPaused ? 0 : SelectionKey.OP_READ) | (unsent != null ? SelectionKey.OP_WRITE : 0);
        try {
            key.interestOps(ops);
        } catch (CancelledKeyException e) {
            // closed meanwhile
        }
    }
}
