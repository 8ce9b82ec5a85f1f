package dev.memoryd.daemon.slip;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.SlipDeliverPayload;
import dev.memoryd.daemon.events.SlipSendPayload;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.slip.Nslip;
import dev.memoryd.grammar.slip.SlipJson;
import dev.memoryd.grammar.slip.SlipMessage;
import dev.memoryd.ledger.Event;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Relays SLIP messages between agents. A sent message is a ledger event ({@code slip_send}) and a
 * commit like any declaration; a delivery is one too ({@code slip_deliver}, naming the messages
 * handed over), recorded before the messages are returned, so each message is delivered at most
 * once and, after a restart, nothing delivered comes back and nothing undelivered is lost.
 * Queues are a fold over those events, rebuilt from the ledger at start.
 *
 * <p>Order: per destination, in ledger (send) order. Thread-safe: receivers of one agent are
 * served one at a time; senders and receivers of different agents do not wait for each other
 * beyond the shared writer.
 */
public final class SlipRelay extends dev.memoryd.daemon.write.LedgerFold {
    public static final String OP_SEND = SlipSendPayload.OP;
    public static final String OP_DELIVER = SlipDeliverPayload.OP;

    /** A message waiting for its destination. */
    public record Queued(String eventId, SlipMessage message, String nslip) {}

    private final WritePipeline writer;
    private final Map<Long, Deque<Queued>> queues = new HashMap<>();
    private final Map<Long, ReentrantLock> receivers = new ConcurrentHashMap<>();

    public SlipRelay(WritePipeline writer) {
        this.writer = writer;
        writer.addListener(this);
        writer.registerReplayer(OP_SEND, evs -> new Send(message(evs.get(0))));
        writer.registerReplayer(OP_DELIVER, evs -> {
            SlipDeliverPayload p = delivery(evs.get(0));
            return new Deliver(p.agent(), p.eventIds());
        });
    }

    @Override
    protected void fold(Event e) {
        if (OP_SEND.equals(e.op())) {
            SlipMessage m = message(e);
            queues.computeIfAbsent(m.dst(), k -> new ArrayDeque<>())
                    .addLast(new Queued(e.eventId(), m, Nslip.encode(m)));
        } else {
            // A delivery of no readable shape names no message to take off a queue.
            EventPayloads.slipDeliver(e).ifPresent(d -> {
                Set<String> ids = new HashSet<>(d.eventIds());
                Deque<Queued> q = queues.get(d.agent());
                if (q != null) {
                    q.removeIf(x -> ids.contains(x.eventId()));
                }
            });
        }
    }

    @Override
    protected void folded() {
        notifyAll(); // wake receivers waiting for messages
    }

    /** Records and queues a message; completes once it is durable and committed. */
    public java.util.concurrent.CompletableFuture<WriteOutcome> send(SlipMessage m, String actor) {
        return writer.submit(WriteRequest.of(new Send(m), null, actor != null ? actor : "agent:" + m.src()));
    }

    /**
     * Up to {@code max} messages for {@code agent}, waiting up to {@code waitMs} for the first.
     * Their delivery is recorded before they are returned; if recording fails they stay queued.
     */
    public List<Queued> recv(long agent, long waitMs, int max) throws InterruptedException, ExecutionException {
        ReentrantLock lock = receivers.computeIfAbsent(agent, k -> new ReentrantLock());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        // Another receiver of this agent holds the queue only while its delivery is recorded.
        if (!lock.tryLock(waitMs + 30_000L, TimeUnit.MILLISECONDS)) {
            return List.of();
        }
        try {
            List<Queued> taken = new ArrayList<>();
            synchronized (this) {
                Deque<Queued> q = queues.computeIfAbsent(agent, k -> new ArrayDeque<>());
                long left;
                while (q.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
                Iterator<Queued> it = q.iterator();
                while (it.hasNext() && taken.size() < max) {
                    taken.add(it.next());
                }
            }
            if (taken.isEmpty()) {
                return taken;
            }
            WriteOutcome out = writer.submit(WriteRequest.of(
                            new Deliver(
                                    agent, taken.stream().map(Queued::eventId).toList()),
                            null,
                            "agent:" + agent))
                    .get();
            if (!(out instanceof WriteOutcome.Committed)) {
                throw new ExecutionException(new IllegalStateException("delivery not recorded: " + out));
            }
            return taken;
        } finally {
            lock.unlock();
        }
    }

    static SlipMessage message(Event e) {
        return EventPayloads.slipSend(e)
                .map(SlipSendPayload::message)
                .orElseThrow(
                        () -> new IllegalStateException("ledger holds an unreadable SLIP message: line " + e.seq()));
    }

    private static SlipDeliverPayload delivery(Event e) {
        return EventPayloads.slipDeliver(e)
                .orElseThrow(
                        () -> new IllegalStateException("ledger holds an unreadable SLIP delivery: line " + e.seq()));
    }

    /** Records one message; touches no file. */
    record Send(SlipMessage m) implements Mutation {
        @Override
        public Result apply(dev.memoryd.grammar.FileSource files, Instant now) {
            ObjectNode payload = JsonNodeFactory.instance.objectNode();
            payload.put("nslip", Nslip.encode(m));
            payload.set("message", SlipJson.toJson(m));
            return new Done(
                    Map.of(),
                    List.of(new EventSpec(
                            OP_SEND,
                            null,
                            null,
                            null,
                            null,
                            payload,
                            List.of(),
                            "relayed SLIP " + m.act() + "/" + m.frame() + " " + m.src() + "->" + m.dst())),
                    true);
        }
    }

    /** Records that messages were handed to their destination. */
    record Deliver(long agent, List<String> eventIds) implements Mutation {
        @Override
        public Result apply(dev.memoryd.grammar.FileSource files, Instant now) {
            ObjectNode payload = JsonNodeFactory.instance.objectNode();
            payload.put("agent", agent);
            eventIds.forEach(payload.putArray("event_ids")::add);
            return new Done(
                    Map.of(),
                    List.of(new EventSpec(
                            OP_DELIVER,
                            null,
                            null,
                            null,
                            null,
                            payload,
                            List.of(),
                            "delivered " + eventIds.size() + " SLIP message(s) to " + agent)),
                    true);
        }
    }
}
