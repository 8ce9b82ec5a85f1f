package dev.memoryd.daemon.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A blocking JSON-RPC client over the daemon's socket: a request and its reply ({@link #call}),
 * or requests sent ahead of their replies ({@link #send}, {@link #receive}), which the daemon
 * answers in the order they were sent. Not thread-safe.
 * With a reply timeout, a call that gets no reply in time closes the connection and throws
 * {@link NoReply}, so a stopped or stuck daemon never leaves a person's command hanging.
 */
public final class SocketClient implements AutoCloseable {
    /**
     * Closes connections whose reply is overdue; one daemon thread for the whole process. No
     * lambdas here or in {@link Alarm}: the first one in a process links the JDK's lambda
     * machinery, which a one-call command would pay for at every start.
     */
    private static final java.util.concurrent.ScheduledExecutorService WATCHDOG =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(new WatchdogThreads());

    private static final class WatchdogThreads implements java.util.concurrent.ThreadFactory {
        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "memoryd-client-watchdog");
            t.setDaemon(true);
            return t;
        }
    }

    /** Closes the connection of a call whose reply is overdue, which wakes its blocked read. */
    private final class Alarm implements Runnable {
        @Override
        public void run() {
            timedOut = true;
            try {
                ch.close();
            } catch (IOException e) {
                // already closed: the read ends either way
            }
        }
    }

    private final SocketChannel ch;
    private final BufferedReader in;
    private final AtomicLong ids = new AtomicLong();
    private final java.time.Duration replyTimeout;
    private volatile boolean timedOut;

    private SocketClient(SocketChannel ch, java.time.Duration replyTimeout) {
        this.ch = ch;
        this.replyTimeout = replyTimeout;
        this.in = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8));
    }

    /** Connects with no reply timeout (programs that drive the daemon themselves: benches, tests, the MCP shim). */
    public static SocketClient connect(Path socket) throws IOException {
        return connect(socket, null);
    }

    /** Connects; each call waits at most {@code replyTimeout} for its reply (null: forever). */
    public static SocketClient connect(Path socket, java.time.Duration replyTimeout) throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        return new SocketClient(ch, replyTimeout);
    }

    /** Sends a request and returns the whole reply object ({@code result} or {@code error}). */
    public JsonNode call(String method, JsonNode params) throws IOException {
        send(method, params);
        return receive();
    }

    /**
     * Sends a request without waiting for its reply: {@link #receive} returns the replies in the
     * order their requests were sent. A failure before any byte was sent is {@link NotSent}.
     */
    public void send(String method, JsonNode params) throws IOException {
        // No ObjectMapper on this path: a one-call command would pay for its first one (TreeJson).
        ObjectNode req = JsonNodeFactory.instance.objectNode();
        req.put("jsonrpc", "2.0");
        req.put("id", ids.incrementAndGet());
        req.put("method", method);
        if (params != null) {
            req.set("params", params);
        }
        sendLine(TreeJson.write(req));
    }

    /** The reply to the oldest request sent and not yet answered, as {@link #call} returns it. */
    public JsonNode receive() throws IOException {
        String reply = readReply();
        if (reply == null) {
            throw new java.io.EOFException("the daemon closed the connection without a reply");
        }
        return TreeJson.read(reply);
    }

    /**
     * Sends one raw line and returns the raw reply line (null if the daemon closed). A failure
     * before any byte of the line was sent is {@link NotSent}: the daemon never saw the request.
     */
    public String raw(String line) throws IOException {
        sendLine(line);
        return readReply();
    }

    private void sendLine(String line) throws IOException {
        // concat, not +: the first + in a process links a string-concatenation bootstrap
        ByteBuffer b = ByteBuffer.wrap(escapeLoneSurrogates(line).concat("\n").getBytes(StandardCharsets.UTF_8));
        try {
            ch.write(b);
        } catch (IOException e) {
            if (b.position() == 0) {
                throw new NotSent(e);
            }
            throw e;
        }
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** The next reply line (null if the daemon closed), waiting at most the reply timeout. */
    private String readReply() throws IOException {
        if (replyTimeout == null) {
            return in.readLine();
        }
        java.util.concurrent.ScheduledFuture<?> alarm =
                WATCHDOG.schedule(new Alarm(), replyTimeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        try {
            String reply = in.readLine();
            if (reply == null && timedOut) {
                throw new NoReply(replyTimeout);
            }
            return reply;
        } catch (NoReply e) {
            throw e;
        } catch (IOException e) {
            if (timedOut) {
                throw new NoReply(replyTimeout);
            }
            throw e;
        } finally {
            alarm.cancel(false);
        }
    }

    /** The bytes {@code value} takes on the wire as {@link #call} sends it: its JSON, surrogates escaped, in UTF-8. */
    public static int wireBytes(JsonNode value) throws IOException {
        return escapeLoneSurrogates(TreeJson.write(value)).getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * {@code json} with each lone surrogate written as its JSON escape ({@code \\ud800}). UTF-8
     * cannot carry one: encoding puts a {@code ?} in its place, so the daemon would get, write and
     * acknowledge another text than the one asked for. Escaped, the daemon refuses it naming the
     * field. A lone surrogate can only stand inside a string literal of the JSON (everything else
     * in JSON is ASCII), where its escape means the same character.
     */
    public static String escapeLoneSurrogates(String json) {
        StringBuilder b = null;
        int n = json.length();
        for (int i = 0; i < n; i++) {
            char c = json.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(json.charAt(i + 1))) {
                if (b != null) {
                    b.append(c).append(json.charAt(i + 1));
                }
                i++;
            } else if (Character.isSurrogate(c)) {
                if (b == null) {
                    b = new StringBuilder(n + 16).append(json, 0, i);
                }
                b.append("\\u").append(Integer.toHexString(c));
            } else if (b != null) {
                b.append(c);
            }
        }
        return b == null ? json : b.toString();
    }

    /**
     * How long a person's command waits for the daemon's reply: {@code MEMORYD_REPLY_TIMEOUT_MS}
     * (or {@code -Dmemoryd.replyTimeoutMs}), else 30 s.
     */
    public static java.time.Duration commandTimeout() {
        String v = System.getProperty("memoryd.replyTimeoutMs", System.getenv("MEMORYD_REPLY_TIMEOUT_MS"));
        try {
            long ms = v == null ? 30_000 : Long.parseLong(v.strip());
            return java.time.Duration.ofMillis(ms > 0 ? ms : 30_000);
        } catch (NumberFormatException e) {
            return java.time.Duration.ofSeconds(30);
        }
    }

    /** No reply came within the timeout; the connection is closed. What was asked may still be done. */
    public static final class NoReply extends IOException {
        private static final long serialVersionUID = 1L;

        NoReply(java.time.Duration timeout) {
            super(
                    "no reply from the daemon within " + timeout.toMillis() + " ms (is it stopped or stuck? see"
                            + " 'bin/memoryd status'); a write sent may still be recorded: check with 'history' before retrying");
        }
    }

    /** The connection failed before the request's first byte left: nothing was sent (e.g. the daemon closed it). */
    public static final class NotSent extends IOException {
        private static final long serialVersionUID = 1L;

        NotSent(IOException cause) {
            super("nothing sent: " + cause.getMessage(), cause);
        }
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }
}
