package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's stdin and stdout, so that a client that sends its last requests and closes stdin
 * still gets every reply: the SDK's stdio transport stops writing once it has seen the end of its
 * input, so a read that meets the end returns it only after as many replies as requests have
 * been written (or 30 s). The SDK handles each request on the thread reading stdin before it
 * reads again (immediate execution), so by the time that thread meets the end, every reply is
 * queued for stdout. Requests and replies are counted per line ({@code id} with {@code method};
 * {@code id} with {@code result} or {@code error}) from their top-level keys alone, with a
 * streaming parser that skips the values, as the bytes pass through on the SDK's own threads (no
 * thread or pipe of its own between stdin and the SDK). It also tells when the client has
 * finished initializing, from which on the server may notify it.
 */
final class DrainingStdio {
    private static final JsonFactory JSON = new JsonFactory();
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong replies = new AtomicLong();
    private volatile Runnable onInitialized = () -> {};
    private final InputStream in;
    private final OutputStream out;

    DrainingStdio(InputStream stdin, OutputStream stdout) {
        this.in = new FilterInputStream(stdin) {
            private final Lines lines = new Lines(true);
            private boolean drained;

            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b < 0) {
                    return drain();
                }
                lines.accept(new byte[] {(byte) b}, 0, 1);
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n < 0) {
                    return drain();
                }
                lines.accept(b, off, n);
                return n;
            }

            private int drain() {
                if (!drained) {
                    drained = true;
                    long deadline = System.nanoTime() + DRAIN_NANOS;
                    while (replies.get() < requests.get() && System.nanoTime() < deadline) {
                        try {
                            Thread.sleep(20);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            break;
                        }
                    }
                }
                return -1;
            }
        };
        this.out = new FilterOutputStream(stdout) {
            private final Lines lines = new Lines(false);

            @Override
            public synchronized void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public synchronized void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
                lines.accept(b, off, len);
            }
        };
    }

    /** Runs {@code r} on the reading thread when the client's {@code notifications/initialized} arrives. */
    void onInitialized(Runnable r) {
        this.onInitialized = r;
    }

    /** Requests read whose replies have not been written yet. */
    long unanswered() {
        return requests.get() - replies.get();
    }

    InputStream in() {
        return in;
    }

    OutputStream out() {
        return out;
    }

    /** Splits one direction's bytes into lines and counts each; used by one thread at a time. */
    private final class Lines {
        private final boolean inbound;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        Lines(boolean inbound) {
            this.inbound = inbound;
        }

        void accept(byte[] b, int off, int len) {
            int start = off;
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n') {
                    if (line.size() == 0) {
                        count(b, start, i - start);
                    } else {
                        line.write(b, start, i - start);
                        count(line.toByteArray(), 0, line.size());
                        line.reset();
                    }
                    start = i + 1;
                }
            }
            line.write(b, start, off + len - start);
        }

        private void count(byte[] b, int off, int len) {
            Shape s = Shape.of(b, off, len);
            if (s == null) {
                return;
            }
            if (!s.id()) {
                if (inbound && "notifications/initialized".equals(s.method())) {
                    onInitialized.run();
                }
                return;
            }
            if (inbound && s.method() != null) {
                requests.incrementAndGet();
            } else if (!inbound && s.outcome()) {
                replies.incrementAndGet();
            }
        }
    }

    /**
     * What counting needs of one JSON-RPC message: whether it has an {@code id}, its
     * {@code method} (when a string) and whether it has a {@code result} or an {@code error}.
     */
    private record Shape(boolean id, String method, boolean outcome) {
        /** The shape of the JSON object in {@code b}, or null when it is not one. */
        static Shape of(byte[] b, int off, int len) {
            boolean id = false;
            boolean outcome = false;
            String method = null;
            try (JsonParser p = JSON.createParser(b, off, len)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    return null;
                }
                for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                    String key = p.currentName();
                    JsonToken v = p.nextToken();
                    switch (key) {
                        case "id" -> id = true;
                        case "result", "error" -> outcome = true;
                        case "method" -> method = v == JsonToken.VALUE_STRING ? p.getText() : method;
                        default -> {}
                    }
                    p.skipChildren();
                }
            } catch (IOException e) {
                return null; // not JSON: the SDK answers it (or not); it is neither a request nor a reply
            }
            return new Shape(id, method, outcome);
        }
    }
}
