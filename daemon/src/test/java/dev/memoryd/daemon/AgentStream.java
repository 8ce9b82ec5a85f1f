package dev.memoryd.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An agent writing {@code append_item} declarations with unique items ({@code prefix} + a
 * counter) to one section of one file over the daemon's socket, paced to a rate, on its own
 * thread and connection. An item is acknowledged when its write's reply carries a commit (or,
 * for an agent that asks for ledger durability, says it was recorded in the ledger); refusals are
 * counted by {@code error.data.reason}.
 */
final class AgentStream {
    private final DaemonProcess daemon;
    private final String path;
    private final String section;
    private final String prefix;
    private final long periodNanos;
    /** The durability each write asks for ({@code commit} or {@code ledger}). */
    private final String durability;

    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    /** Acknowledged items and the commit their reply named ({@code ledger <event id>} for a ledger-durability reply). */
    final Map<String, String> acked = new ConcurrentHashMap<>();

    final Set<String> sent = ConcurrentHashMap.newKeySet();
    final Map<String, AtomicInteger> refused = new ConcurrentHashMap<>();
    /** The first reply of each refusal reason, for reports. */
    final Map<String, String> refusalSample = new ConcurrentHashMap<>();

    final AtomicInteger replies = new AtomicInteger();
    private volatile Throwable failure;

    private AgentStream(
            DaemonProcess daemon, String path, String section, String prefix, double perSecond, String durability) {
        this.daemon = daemon;
        this.durability = durability;
        this.path = path;
        this.section = section;
        this.prefix = prefix;
        this.periodNanos = (long) (1e9 / perSecond);
        this.thread = new Thread(this::run, "agent " + prefix);
    }

    /** Starts writing to {@code section} of {@code path} at about {@code perSecond} declarations a second. */
    static AgentStream start(DaemonProcess daemon, String path, String section, String prefix, double perSecond) {
        return start(daemon, path, section, prefix, perSecond, "commit");
    }

    /** As {@link #start(DaemonProcess, String, String, String, double)}, each write asking for {@code durability}. */
    static AgentStream start(
            DaemonProcess daemon, String path, String section, String prefix, double perSecond, String durability) {
        AgentStream s = new AgentStream(daemon, path, section, prefix, perSecond, durability);
        s.thread.start();
        return s;
    }

    String path() {
        return path;
    }

    private void run() {
        try (SocketClient c = daemon.client()) {
            long next = System.nanoTime();
            for (int i = 0; !stop.get(); i++) {
                String item = prefix + i;
                sent.add(item);
                String decl = Decl.of(Decl.appendItem(path, section, item));
                JsonNode r =
                        c.call("write", TestRoot.json("{\"durability\":\"" + durability + "\"," + decl.substring(1)));
                JsonNode commit = r.path("result").path("commit");
                if (commit.isTextual()) {
                    acked.put(item, commit.asText());
                } else if ("ledger".equals(r.path("result").path("durability").asText())) {
                    acked.put(
                            item, "ledger " + r.at("/result/events/0/event_id").asText());
                } else {
                    String reason = r.has("error")
                            ? r.path("error").path("data").path("reason").asText("no_reason")
                            : "reply_without_commit";
                    refused.computeIfAbsent(reason, k -> new AtomicInteger()).incrementAndGet();
                    refusalSample.putIfAbsent(reason, r.toString());
                }
                replies.incrementAndGet();
                next += periodNanos;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } else {
                    next = System.nanoTime(); // behind: no burst to catch up
                }
            }
        } catch (IOException | RuntimeException e) {
            failure = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until {@code n} replies in all have come, at most {@code timeoutMs}; false on timeout. */
    boolean awaitReplies(int n, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (replies.get() < n && System.nanoTime() < deadline && thread.isAlive()) {
            Thread.sleep(5);
        }
        return replies.get() >= n;
    }

    /** Waits until {@code n} items in all are acknowledged, at most {@code timeoutMs}; false on timeout. */
    boolean awaitAcked(int n, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (acked.size() < n && System.nanoTime() < deadline && thread.isAlive()) {
            Thread.sleep(5);
        }
        return acked.size() >= n;
    }

    /**
     * Stops after the write in flight has its reply. An assertion (with the daemon's log) when no
     * reply comes within 60 s or the connection failed.
     */
    void stop() throws InterruptedException {
        stop.set(true);
        thread.join(60_000);
        if (thread.isAlive()) {
            throw new AssertionError(
                    thread.getName() + ": no reply within 60 s\n--- daemon log tail ---\n" + daemon.logTail(60));
        }
        if (failure != null) {
            throw new AssertionError(
                    thread.getName() + " failed: " + failure + "\n--- daemon log tail ---\n" + daemon.logTail(60),
                    failure);
        }
    }

    /** Stops without waiting (for clean-up after a failure). */
    void abandon() {
        stop.set(true);
    }

    /** Refusal counts by reason, sorted. */
    Map<String, Integer> refusals() {
        Map<String, Integer> m = new TreeMap<>();
        refused.forEach((k, v) -> m.put(k, v.get()));
        return m;
    }
}
