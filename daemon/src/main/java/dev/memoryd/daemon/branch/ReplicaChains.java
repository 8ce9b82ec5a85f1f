package dev.memoryd.daemon.branch;

import static dev.memoryd.daemon.branch.Branches.OP_FORK;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.events.Decl;
import dev.memoryd.daemon.events.ForkPayload;
import dev.memoryd.daemon.git.CommitBatch;
import dev.memoryd.daemon.git.CommitFormat;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.EventDraft;
import dev.memoryd.ledger.IdGenerator;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The chains of other replicas (clones that write {@code <branch>@<replica>}) on a branch: which
 * ledger files a remote head brings that extend ours, committing them with no event of their
 * own, and a replica's first chain line (its {@code branch_fork}). One chain has one writer, so
 * of two copies of a chain one is a prefix of the other; anything else is refused.
 */
final class ReplicaChains {
    private ReplicaChains() {}

    /** {@code ledger/<chain>/<group>/<segment>.ndjson} → the chain; null for any other path. */
    static BranchName chainOfPath(String path) {
        java.util.regex.Matcher m = SEGMENT_PATH.matcher(path);
        if (!m.matches()) {
            return null;
        }
        try {
            return new BranchName(m.group(1));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static final java.util.regex.Pattern SEGMENT_PATH =
            java.util.regex.Pattern.compile("ledger/(.+)/\\d{4}/\\d{8}\\.ndjson");

    /**
     * Segment files of other replicas' chains where theirs' tree extends ours. Checks that this
     * root's own chains in theirs' tree are prefixes of ours (another root writing one of our
     * chains means two roots share a replica id); {@code ourChain} says which chains are this root's.
     *
     * @throws IllegalStateException when a chain differs between the two trees beyond a common prefix
     */
    static Map<String, byte[]> foreignChains(GitStore g, ObjectId ours, ObjectId theirs, Predicate<BranchName> ourChain)
            throws IOException {
        Map<String, byte[]> out = new java.util.TreeMap<>();
        for (String path : g.changedPaths(ours, theirs, p -> p.startsWith("ledger/"))) {
            BranchName chain = chainOfPath(path);
            if (chain == null) {
                continue;
            }
            byte[] t = g.read(theirs, path).orElse(null);
            byte[] o = g.read(ours, path).orElse(null);
            if (t == null || (o != null && startsWith(o, t))) {
                continue; // ours holds as much or more
            }
            if (ourChain.test(chain)) {
                throw new IllegalStateException("the remote holds lines of chain " + chain
                        + " that this root did not write ("
                        + path + "): two roots write the same chain; give each clone its own replica id (git config "
                        + GitStore.REPLICA_KEY + "; 'memoryd clone' sets one)");
            }
            if (o != null && !startsWith(t, o)) {
                throw new IllegalStateException(
                        "chain " + chain + " differs between here and the remote beyond a common" + " prefix (" + path
                                + "); run 'memoryd ledger verify' on both roots");
            }
            out.put(path, t);
        }
        return out;
    }

    private static boolean startsWith(byte[] all, byte[] prefix) {
        return all.length >= prefix.length && java.util.Arrays.equals(all, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** Commits other replicas' chain files on {@code w}'s branch with no event, capturing git commits first if needed. */
    static ObjectId commitForeign(WritePipeline w, Map<String, byte[]> files, String message, ObjectId mergeParent)
            throws IOException {
        for (int attempt = 0; attempt < 5; attempt++) {
            Optional<ObjectId> c = BranchWriters.await(w.exclusive(() -> w.commitForeign(files, message, mergeParent)));
            if (c.isPresent()) {
                return c.get();
            }
            BranchWriters.await(w.capture(List.of())); // commits made with git come first, as before any write
        }
        throw new IOException("the branch kept moving under the sync (commits made with git?); run sync again");
    }

    /**
     * A replica's first start: its chain of the checked-out branch is empty while the branch holds
     * history another root recorded (a commit with a ledger head). Appends (and fsyncs) a {@code branch_fork} line linked to the line
     * the head records, then commits it on the head; a crash between the two is finished by the
     * writer's recovery, which commits the line. Call before the writer is made.
     */
    static void forkReplicaChain(GitStore git, Chain chain, IdGenerator ids, Clock clock) throws IOException {
        ObjectId head = git.head();
        if (chain.head().seq() > 0 || head == null || chain.branch().replica().isEmpty()) {
            return;
        }
        BranchName branch = chain.branch().gitBranch();
        Optional<LedgerTrailers.RecordedHead> link = LedgerTrailers.ledgerHeadAt(git, head, branch.value());
        if (link.isEmpty()) {
            return; // nothing upstream is recorded yet: this root imports the files at its start, as the first root
            // does
        }
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        String eventId = ids.next().value();
        // recorded_commit: what the linked line recorded; commits made with git after it are captured here.
        ObjectNode payload = new ForkPayload(
                        new ForkPayload.Link(
                                link.get().chain().value(),
                                link.get().head().seq(),
                                link.get().head().lineHash()),
                        branch.value(),
                        head.name(),
                        link.get().commit().name(),
                        chain.branch().replica().get(),
                        Decl.single(eventId))
                .toJson();
        String why = "replica " + chain.branch().replica().get() + " starts its chain of " + branch.value();
        List<Event> ev = chain.append(List.of(new EventDraft(
                eventId,
                now.toString(),
                branch.value(),
                "memoryd",
                null,
                null,
                null,
                null,
                OP_FORK,
                null,
                null,
                null,
                payload,
                why,
                List.of(),
                null,
                null)));
        chain.sync();
        Event fork = ev.get(0);
        try (CommitBatch b = git.batch()) {
            b.commit(
                    chain.dirtySegments(),
                    CommitFormat.author("memoryd", now),
                    CommitFormat.committer(now),
                    CommitFormat.message(
                            List.of(why),
                            null,
                            "memoryd",
                            List.of(eventId),
                            fork.seq(),
                            fork.integrity().lineHash(),
                            chain.branch().value()));
            b.publish().orThrow();
        }
    }
}
