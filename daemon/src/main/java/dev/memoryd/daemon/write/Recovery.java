package dev.memoryd.daemon.write;

import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.ForkPayload;
import dev.memoryd.daemon.git.CommitFormat;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
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
    private final LedgerReplay replay;

    Recovery(WriterState s, LedgerReplay replay) {
        this.s = s;
        this.replay = replay;
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
        long trailed = published;
        published = HistoryHead.inTree(git, git.head(), chain, published, durable);
        if (durable > published) {
            rollForward(published); // first: it may drop a cut-off declaration's lines
        }
        Iterator<Event> it = chain.read(1);
        while (it.hasNext()) {
            Event e = it.next();
            if (e.idempotencyKey() != null) {
                IdempotentWrite w = s.idempotent.computeIfAbsent(
                        e.idempotencyKey(),
                        k -> new IdempotentWrite(
                                WriteRequest.recordedFingerprint(e.payload()),
                                new WriteOutcome.Committed(null, new ArrayList<>(), true)));
                ((WriteOutcome.Committed) w.outcome()).events().add(Publisher.ref(e));
            }
        }
        if (s.files.workTree()) {
            git.syncIndexToHead(s.files.root());
        }
        s.captured = LedgerTrailers.recordedCommit(git, chain.branch()).orElse(null);
        if (s.captured != null && !madeByMemoryd(s.captured)) {
            if (recordFromLedger(s.captured)) {
                LOG.warning("the branch's last commit with memoryd's ledger trailer (" + s.captured.name()
                        + ") was not committed by memoryd (a commit amended, rebased or cherry-picked with git): its"
                        + " memory files are compared with what the ledger records, and what differs is captured as a"
                        + " human's edit");
            }
        } else if (s.captured != null && published > trailed) {
            // A commit made with git from an index holding memoryd's last writes (an amend with a
            // message of the human's): the trailer's commit lacks them, the ledger has them.
            if (recordFromLedger(s.captured)) {
                LOG.warning("the branch holds memoryd's ledger lines " + (trailed + 1) + "-" + published
                        + " in a commit made with git (an amend of memoryd's commit?): its memory files are compared"
                        + " with what the ledger records, and what differs is captured as a human's edit");
            }
        }
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

    /** Whether memoryd committed {@code commit} (it is the committer of every commit it makes). */
    private boolean madeByMemoryd(ObjectId commit) throws IOException {
        try (org.eclipse.jgit.revwalk.RevWalk rw = new org.eclipse.jgit.revwalk.RevWalk(s.git.repository())) {
            return CommitFormat.isMemoryd(rw.parseCommit(commit).getCommitterIdent());
        }
    }

    /**
     * The recorded texts of memory files taken from the ledger rather than from {@code commit}: a
     * commit with memoryd's ledger trailer that someone else committed is one of memoryd's that git
     * rewrote (amended, rebased, cherry-picked), and its files may hold that person's changes besides
     * memoryd's. The rescan at the start then captures what differs as their edit. A memory file of
     * the commit that the ledger never wrote is recorded as absent, so it is captured as new. False
     * when the ledger cannot be replayed (the commit's files are then taken as recorded).
     */
    private boolean recordFromLedger(ObjectId commit) throws IOException {
        LedgerReplay.ReplayState st = replay.fromEmpty(n -> {});
        if (!st.halts().isEmpty()) {
            LOG.warning("the branch's last commit with memoryd's ledger trailer (" + commit.name()
                    + ") was made by someone else, and the ledger cannot be replayed to compare its files with ("
                    + st.halts().get(0).reason() + "); its files are taken as recorded");
            return false;
        }
        for (String p : s.git.listFiles(commit)) {
            if (RootLayout.isMemoryFile(p)) {
                RepoPath rp = RepoPath.of(p);
                s.recorded.put(rp, Optional.ofNullable(st.files().get(rp)));
            }
        }
        st.files().forEach((p, text) -> {
            if (RootLayout.isMemoryFile(p)) {
                s.recorded.putIfAbsent(p, Optional.of(text));
            }
        });
        return true;
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
