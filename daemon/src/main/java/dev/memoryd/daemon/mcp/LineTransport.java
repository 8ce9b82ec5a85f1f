package dev.memoryd.daemon.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import reactor.core.publisher.Mono;

/**
 * The MCP server's stdio transport: newline-delimited JSON-RPC, one message a line, on one
 * thread. {@link #serve} reads a line, has the session handle it and, for a request, writes the
 * reply to stdout, all on the calling thread, before it reads the next line; so requests are
 * served in the order they arrive, one at a time, and when stdin ends every reply has been
 * written. (The one exception is the SDK's: a request that comes before the client's
 * {@code notifications/initialized} waits for it and is answered when it is handled; at the end
 * of stdin such replies are waited for, at most {@link #DRAIN_MS}.) The SDK's own stdio transport (2.0.1) hands each outgoing message to a writer thread
 * of its own: a thread wake-up on every reply, which on a busy 2-core machine costs more than
 * the rest of the shim's work, and it stops writing once it has read the end of its input.
 *
 * <p>Thread-safety: one thread serves; {@link McpServerTransport#sendMessage} may be called from
 * any thread (the resource watch notifies from its own) and writes each message whole, under a
 * lock, so lines never interleave. A send completes once its line is flushed to stdout.
 *
 * <p>A line that is not a JSON-RPC message is answered with JSON-RPC's error for it ({@link
 * NotJsonRpc}), so a client waiting for a reply to a malformed request is not left waiting; a
 * blank line is skipped; a line over {@link #MAX_LINE_BYTES} ends the session, as the SDK's
 * transport does. A tool call or resource request whose params are unusable (no tool name,
 * arguments that are no object, no {@code uri}) is answered with invalid params before the SDK
 * sees it ({@link RequestParams}).
 */
final class LineTransport implements McpServerTransportProvider {
    private static final Logger LOG = Logger.getLogger(LineTransport.class.getName());
    /** The longest line read, as the SDK's stdio transport allows. */
    static final int MAX_LINE_BYTES = 16 * 1024 * 1024;
    /** How long the end of stdin waits for replies still owed (requests sent before initializing). */
    static final long DRAIN_MS = 30_000;

    private final McpJsonMapper json;
    private final InputStream in;
    private final OutputStream out;
    private final Object writing = new Object();
    private final Object handling = new Object();
    private final ThreadLocal<ByteArrayOutputStream> held = new ThreadLocal<>();
    private int unfinished; // guarded by handling
    private volatile McpServerSession session;
    private volatile Runnable onInitialized = () -> {};

    LineTransport(McpJsonMapper json, InputStream in, OutputStream out) {
        this.json = json;
        this.in = in;
        this.out = out;
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory factory) {
        session = factory.create(new Session());
    }

    /** Runs {@code r} on the serving thread once the client's {@code notifications/initialized} is handled. */
    void onInitialized(Runnable r) {
        this.onInitialized = r;
    }

    /**
     * Serves stdin until it ends (or a line is too long, or it cannot be read): each message
     * handled, and a request's reply written, before the next line is read.
     */
    void serve() {
        McpServerSession s = session;
        if (s == null) {
            throw new IllegalStateException("no session: build the server on this transport first");
        }
        Lines lines = new Lines(in);
        try {
            for (byte[] line = lines.next(); line != null; line = lines.next()) {
                handle(s, new String(line, StandardCharsets.UTF_8));
            }
        } catch (LineTooLong e) {
            LOG.log(Level.WARNING, "an MCP message exceeds " + MAX_LINE_BYTES + " bytes; ending the session");
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not read stdin; ending the session", e);
        } finally {
            drain();
            s.close();
        }
    }

    private void handle(McpServerSession s, String line) {
        if (line.isBlank()) {
            return;
        }
        McpSchema.JSONRPCMessage m;
        try {
            m = McpSchema.deserializeJsonRpcMessage(json, line);
        } catch (IOException | IllegalArgumentException e) {
            LOG.log(Level.WARNING, "answered a line that is not a JSON-RPC message: " + e.getMessage());
            write(NotJsonRpc.reply(line));
            return;
        }
        if (!NotJsonRpc.isVersion2(m)) {
            if (m instanceof McpSchema.JSONRPCRequest r) {
                write(NotJsonRpc.notVersion2(r));
            } else {
                // JSON-RPC answers no notification and no response, so the log is all that says why nothing happens.
                LOG.log(Level.WARNING, "ignored a notification or response whose \"jsonrpc\" is not \"2.0\"");
            }
            return;
        }
        Optional<McpSchema.JSONRPCResponse> refused = RequestParams.refusal(m);
        if (refused.isPresent()) {
            write(refused.get());
            return;
        }
        synchronized (handling) {
            unfinished++;
        }
        // Handled as it is subscribed, on this thread (immediate execution); only a request that
        // comes before the client's notifications/initialized waits, and is answered once that arrives.
        s.handle(m).doFinally(x -> finished()).subscribe(null, e -> LOG.log(Level.FINE, "an MCP message failed", e));
        if (m instanceof McpSchema.JSONRPCNotification n
                && McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(n.method())) {
            onInitialized.run();
        }
    }

    private void finished() {
        synchronized (handling) {
            unfinished--;
            handling.notifyAll();
        }
    }

    /** Waits (at most {@link #DRAIN_MS}) for messages still being handled: requests sent before initializing. */
    private void drain() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MS);
        synchronized (handling) {
            for (long left = DRAIN_MS;
                    unfinished > 0 && left > 0;
                    left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
                try {
                    handling.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * Runs {@code r} with the messages this thread sends meanwhile held back, then writes them
     * together: a client told the list changed asks for it only once every change of the round
     * is registered.
     */
    void together(Runnable r) {
        ByteArrayOutputStream held = new ByteArrayOutputStream();
        this.held.set(held);
        try {
            r.run();
        } finally {
            this.held.remove();
            if (held.size() > 0) {
                synchronized (writing) {
                    try {
                        out.write(held.toByteArray());
                        out.flush();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        }
    }

    private void write(McpSchema.JSONRPCMessage message) {
        byte[] line;
        try {
            // Compact JSON: a string's line breaks are escaped, so the message is one line.
            line = (json.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        write(line);
    }

    private void write(byte[] line) {
        ByteArrayOutputStream together = held.get();
        if (together != null) {
            together.writeBytes(line);
            return;
        }
        synchronized (writing) {
            try {
                out.write(line);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        McpServerSession s = session;
        if (s == null) {
            return Mono.error(new IllegalStateException("No session to notify"));
        }
        return s.sendNotification(method, params)
                .doOnError(e -> LOG.log(Level.WARNING, "could not send notification " + method + ": " + e));
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        McpServerSession s = session;
        if (s == null) {
            return Mono.error(new IllegalStateException("No session to notify"));
        }
        if (!s.getId().equals(sessionId)) {
            return Mono.error(new IllegalStateException(
                    "No session with id " + sessionId + " (the session is " + s.getId() + ")"));
        }
        return s.sendNotification(method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
        McpServerSession s = session;
        return s == null ? Mono.empty() : s.closeGracefully();
    }

    /** The one session's side: its sends are written by whichever thread makes them. */
    private final class Session implements McpServerTransport {
        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.fromRunnable(() -> write(message));
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return json.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.empty();
        }
    }

    private static final class LineTooLong extends IOException {
        LineTooLong() {
            super("line too long");
        }
    }

    /** Splits stdin into lines ended by {@code \n}, {@code \r\n} or {@code \r}, as the SDK's transport did. */
    private static final class Lines {
        private final InputStream in;
        private final byte[] buf = new byte[8192];
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();
        private int pos;
        private int end;
        private boolean skipLf; // a line ended at '\r': a '\n' right after belongs to it

        Lines(InputStream in) {
            this.in = in;
        }

        /** The next line's bytes without its end, or null at the end of input (a last unended line counts). */
        byte[] next() throws IOException {
            line.reset();
            while (true) {
                if (pos == end) {
                    end = in.read(buf, 0, buf.length);
                    pos = 0;
                    if (end <= 0) {
                        end = 0;
                        return line.size() == 0 ? null : line.toByteArray();
                    }
                }
                if (skipLf) {
                    skipLf = false;
                    if (buf[pos] == '\n') {
                        pos++;
                        continue;
                    }
                }
                int start = pos;
                while (pos < end && buf[pos] != '\n' && buf[pos] != '\r') {
                    pos++;
                }
                if (line.size() + (pos - start) > MAX_LINE_BYTES) {
                    throw new LineTooLong();
                }
                line.write(buf, start, pos - start);
                if (pos < end) {
                    skipLf = buf[pos] == '\r';
                    pos++;
                    return line.toByteArray();
                }
            }
        }
    }
}
