package dev.memoryd.daemon.rpc;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Which client connection the request being handled on this thread came from, for what a handler
 * records about its caller (the provenance {@code session} when the request names none). A worker
 * runs one request of one connection at a time, so a thread-local holds it for exactly that
 * request.
 */
final class RequestContext {
    private static final AtomicLong NEXT = new AtomicLong();
    private static final long PID = ProcessHandle.current().pid();
    private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    private RequestContext() {}

    /** A new connection's id: {@code connection:<daemon pid>.<n>}, unique within this daemon process. */
    static String newConnectionId() {
        return "connection:" + PID + "." + NEXT.incrementAndGet();
    }

    /** Runs {@code body} as a request of connection {@code id}. */
    static <T> T on(String id, java.util.function.Supplier<T> body) {
        String before = CURRENT.get();
        CURRENT.set(id);
        try {
            return body.get();
        } finally {
            if (before == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(before);
            }
        }
    }

    /** The connection of the request running on this thread, or null outside one. */
    static String connection() {
        return CURRENT.get();
    }
}
