package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.DaemonReply;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Whether the ledger verifies, kept fresh off the request path: a full {@code ledger.verify} reads
 * every line of every chain (about 100 ms at 10,000 events, and it grows with the ledger), too slow
 * for each render of the overview. A background check verifies again whenever the daemon's head
 * commit moves, and every {@link #MAX_AGE} in any case (a file changed under the daemon moves no
 * head); pages show the latest result with when it was taken, and the ledger page can verify now.
 */
final class LedgerStatus implements AutoCloseable {
    /** How often the daemon's head is looked at. */
    static final Duration POLL = Duration.ofSeconds(2);
    /** The oldest a result may get before it is taken again, the head moved or not. */
    static final Duration MAX_AGE = Duration.ofSeconds(30);

    /** One {@code ledger.verify} result, the head commit when it was asked for, and when. */
    record Seen(JsonNode result, String head, Instant at) {}

    private final Rpc rpc;
    private final Clock clock;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "memoryd-console-verify");
        t.setDaemon(true);
        return t;
    });
    private volatile Seen last;

    LedgerStatus(Rpc rpc, Clock clock) {
        this.rpc = rpc;
        this.clock = clock;
    }

    /** Starts the background check. */
    LedgerStatus start() {
        timer.scheduleWithFixedDelay(this::refreshQuietly, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** The latest result; verifies now when there is none yet or it is older than {@link #MAX_AGE}. */
    Seen latest() {
        Seen s = last;
        if (s == null || s.at().plus(MAX_AGE).isBefore(clock.instant())) {
            return now();
        }
        return s;
    }

    /** Verifies now, on the caller's thread. */
    Seen now() {
        String head = rpc.get("ping", null).path("head").asText(null);
        Seen s = new Seen(rpc.get("ledger.verify", null), head, clock.instant());
        last = s;
        return s;
    }

    private void refreshQuietly() {
        Seen s = last;
        DaemonReply ping = rpc.call("ping", null);
        if (!(ping instanceof DaemonReply.Result r)) {
            return; // no daemon: the pages say so themselves
        }
        String head = r.value().path("head").asText(null);
        if (s == null
                || !Objects.equals(head, s.head())
                || s.at().plus(MAX_AGE.dividedBy(2)).isBefore(clock.instant())) {
            if (rpc.call("ledger.verify", null) instanceof DaemonReply.Result v) {
                last = new Seen(v.value(), head, clock.instant());
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
