package dev.memoryd.daemon.rpc;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * How many client connections the daemon holds open at once: the configured maximum, lowered so
 * that clients can never take the file descriptors the writer, JGit and the ledger need. A
 * quarter of the process's open-file limit (at least 128, at most half) is kept back for them.
 *
 * @param requested the configured maximum ({@code serve --max-connections})
 * @param openFileLimit the process's open-file limit, or -1 when it cannot be read
 * @param effective the number actually admitted
 */
public record ConnectionLimit(int requested, long openFileLimit, int effective) {
    public ConnectionLimit {
        if (requested < 1) {
            throw new IllegalArgumentException("the connection limit must be at least 1, not " + requested);
        }
    }

    /** The limit for this process, from its open-file limit. */
    public static ConnectionLimit forThisProcess(int requested) {
        return of(requested, processOpenFileLimit());
    }

    /** The limit given an open-file limit ({@code -1}: unknown, the request stands). */
    public static ConnectionLimit of(int requested, long openFileLimit) {
        if (openFileLimit < 0) {
            return new ConnectionLimit(requested, openFileLimit, requested);
        }
        long room = Math.max(1, openFileLimit - reserved(openFileLimit));
        return new ConnectionLimit(requested, openFileLimit, (int) Math.min(requested, room));
    }

    /** Descriptors kept back from clients. */
    static long reserved(long openFileLimit) {
        return Math.min(openFileLimit / 2, Math.max(128, openFileLimit / 4));
    }

    private static long processOpenFileLimit() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os) {
            return os.getMaxFileDescriptorCount();
        }
        return -1;
    }

    /** One line for the log at start. */
    public String describe() {
        if (openFileLimit < 0) {
            return "serving at most " + effective + " connections (--max-connections " + requested
                    + "; the open-file limit is unknown)";
        }
        return "serving at most " + effective + " connections (--max-connections " + requested
                + ", open-file limit " + openFileLimit + ", " + reserved(openFileLimit)
                + " descriptors kept for the writer" + (effective < requested ? "; raise ulimit -n to allow more" : "")
                + ")";
    }

    /** The message a client over the limit gets. */
    String refusal() {
        return "memoryd already serves its limit of " + effective + " connections (serve --max-connections "
                + requested + (effective < requested ? ", lowered by the open-file limit " + openFileLimit : "")
                + "); close idle connections or raise --max-connections";
    }
}
