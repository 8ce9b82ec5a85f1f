package dev.memoryd.daemon.write;

import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.ForkPayload;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;

/**
 * A writer's start: the ledger checked against what the branch says is published, an
 * unpublished ledger tail rolled forward ({@link RollForward}), idempotency keys loaded from the
 * chain and the recorded commit found.
 *
 * <p>Thread-safety: runs once, before the writer thread starts.
 */
final class Recovery {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    private final WriterState s;

    Recovery(WriterState s) {
        this.s = s;
    }

    /** Loads idempotency keys from the chain; rolls an unpublished ledger tail forward. */
    void run() throws IOException {
        Chain chain = s.chain;
        GitStore git = s.git;
        long published = publishedSeq();
        long durable = chain.head().seq();
        if (durable < published) {
            throw new IllegalStateException("the ledger of " + s.branch.value() + " ends at line " + durable
                    + " but the branch head records line " + published
                    + ": the ledger lost lines; run 'memoryd ledger verify'");
        }
        if (durable > published) {
            // Lines a merge brought in (a plain clone of a synced remote) are published, not lost.
            published = HistoryHead.seq(git, git.head(), chain.branch(), published, durable);
        }
        if (durable > published) {
            rollForward(published); // first: it may drop a cut-off declaration's lines
        }
        Iterator<Event> it = chain.read(1);
        while (it.hasNext()) {
            Event e = it.next();
            if (e.idempotencyKey() != null) {
                s.idempotent.computeIfAbsent(
                        e.idempotencyKey(), k -> new WriteOutcome.Committed(null, new ArrayList<>(), true));
                WriteOutcome.Committed c = (WriteOutcome.Committed) s.idempotent.get(e.idempotencyKey());
                c.events().add(Publisher.ref(e));
            }
        }
        if (s.files.workTree()) {
            git.syncIndexToHead(s.files.root());
        }
        s.captured = LedgerTrailers.recordedCommit(git, chain.branch()).orElse(null);
        if (chain.head().seq() == 1) {
            // A replica's chain that holds only its fork: what it inherited is recorded up to the linked
            // commit, so commits made with git after that one are still to be captured here.
            Event fork = chain.read(1).next();
            String upstream =
                    EventPayloads.fork(fork).map(ForkPayload::recordedCommit).orElse("");
            if (ObjectId.isId(upstream) && git.isAncestor(ObjectId.fromString(upstream), git.head())) {
                s.captured = ObjectId.fromString(upstream);
            }
        }
    }

    /** The ledger seq the branch head (or its nearest memoryd ancestor) says is published. */
    private long publishedSeq() throws IOException {
        return LedgerTrailers.publishedHeadAt(s.git, s.git.head(), s.chain.branch())
                .map(dev.memoryd.ledger.Head::seq)
                .orElse(0L);
    }

    private void rollForward(long published) throws IOException {
        RollForward.Result r = new RollForward(s.chain, s.git, s.files, s.replayers, s.chainTrailer()).run(published);
        if (r.groups().isEmpty()) {
            return;
        }
        if (s.files.workTree()) {
            s.indexBacklog.putAll(r.written());
        }
        for (List<Event> g : r.groups()) {
            s.notifyListeners(g);
        }
        LOG.info("recovery rolled " + r.groups().size() + " unpublished declaration(s) forward");
    }
}
