package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's stdin and stdout, so that a client that sends its last requests and closes stdin
 * still gets every reply: the SDK's stdio transport stops writing once it has seen the end of its
 * input, so the end is passed on only after as many replies as requests have been written (or 30
 * s). Requests and replies are counted per line ({@code id} with {@code method}; {@code id} with
 * {@code result} or {@code error}). It also tells when the client has finished initializing, from
 * which on the server may notify it.
 */
final class DrainingStdio {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final AtomicLong requests = new AtomicLong();
    private volatile Runnable onInitialized = () -> {};
    private final AtomicLong replies = new AtomicLong();
    private final PipedInputStream in;
    private final OutputStream out;

    DrainingStdio(InputStream stdin, OutputStream stdout) throws IOException {
        this.in = new PipedInputStream(1 << 16);
        PipedOutputStream pipe = new PipedOutputStream(in);
        this.out = new FilterOutputStream(stdout) {
            private final ByteArrayOutputStream line = new ByteArrayOutputStream();

            @Override
            public synchronized void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public synchronized void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
                for (int i = off; i < off + len; i++) {
                    if (b[i] == '\n') {
                        count(line.toByteArray(), false);
                        line.reset();
                    } else {
                        line.write(b[i]);
                    }
                }
            }
        };
        Thread pump = new Thread(() -> pump(stdin, pipe), "mcp-stdin");
        pump.setDaemon(true);
        pump.start();
    }

    /** Runs {@code r} on the reading thread when the client's {@code notifications/initialized} arrives. */
    void onInitialized(Runnable r) {
        this.onInitialized = r;
    }

    InputStream in() {
        return in;
    }

    OutputStream out() {
        return out;
    }

    private void pump(InputStream stdin, PipedOutputStream pipe) {
        try (pipe;
                BufferedReader r = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8))) {
            for (String l = r.readLine(); l != null; l = r.readLine()) {
                byte[] b = l.getBytes(StandardCharsets.UTF_8);
                count(b, true);
                pipe.write(b);
                pipe.write('\n');
                pipe.flush();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (replies.get() < requests.get() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } catch (IOException e) {
            // the server stopped reading: nothing left to pass on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void count(byte[] line, boolean inbound) {
        JsonNode n;
        try {
            n = JSON.readTree(line);
        } catch (IOException e) {
            return;
        }
        if (n == null || !n.isObject()) {
            return;
        }
        if (!n.has("id")) {
            if (inbound && "notifications/initialized".equals(n.path("method").asText())) {
                onInitialized.run();
            }
            return;
        }
        if (inbound && n.has("method")) {
            requests.incrementAndGet();
        } else if (!inbound && (n.has("result") || n.has("error"))) {
            replies.incrementAndGet();
        }
    }
}
