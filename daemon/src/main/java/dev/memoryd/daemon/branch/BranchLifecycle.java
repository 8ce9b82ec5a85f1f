package dev.memoryd.daemon.branch;

import static dev.memoryd.daemon.branch.Branches.OP_DELETE;
import static dev.memoryd.daemon.branch.Branches.OP_FORK;
import static dev.memoryd.daemon.git.GitStore.RETIRED_PREFIX;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.events.Decl;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.ForkPayload;
import dev.memoryd.daemon.git.CommitFormat;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.EventDraft;
import dev.memoryd.ledger.Head;
import dev.memoryd.ledger.IdGenerator;
import dev.memoryd.ledger.Ledger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;

/**
 * A branch's life: {@code branch.create} (a {@code branch_fork} line, fsynced, then the fork
 * commit and ref), {@code branch.delete} (a {@code branch_delete} line committed on the branch's
 * writer, then its ref retired to {@code refs/memoryd/deleted/<branch>}), the listing, and
 * {@link #load}, which finishes either after a crash. Create, delete and load synchronize on the
 * {@link BranchWriters}, so they never interleave with a writer's lookup.
 */
final class BranchLifecycle {
    private final Path root;
    private final Ledger ledger;
    private final GitStore git;
    private final IdGenerator ids;
    private final Clock clock;
    private final BranchWriters writers;

    BranchLifecycle(Path root, Ledger ledger, GitStore git, IdGenerator ids, Clock clock, BranchWriters writers) {
        this.root = root;
        this.ledger = ledger;
        this.git = git;
        this.ids = ids;
        this.clock = clock;
        this.writers = writers;
    }

    /**
     * Finishes what a crash cut short: a fork line with no branch gets its commit and ref, a
     * branch whose chain ends in its deletion has its ref retired, and a branch whose chain runs
     * past its head has its writer started now (its recovery rolls the tail forward).
     */
    void load() throws IOException {
        synchronized (writers) {
            loadLocked();
        }
    }

    private void loadLocked() throws IOException {
        for (BranchName cn : ledger.branches()) {
            BranchName b = cn.gitBranch();
            if (!writers.ours(cn) || b.equals(writers.checkedOut().branch())) {
                continue;
            }
            Chain c = ledger.chain(cn);
            if (c.head().seq() == 0) {
                continue;
            }
            Event last = lastEvent(c);
            Optional<ObjectId> ref = git.branchHead(b.value());
            if (OP_DELETE.equals(last.op())) {
                if (ref.isPresent()) {
                    git.retireRef(Constants.R_HEADS + b.value(), RETIRED_PREFIX + b.value(), ref.get());
                }
            } else if (ref.isEmpty() && OP_FORK.equals(last.op())) {
                ObjectId from = ObjectId.fromString(EventPayloads.fork(last)
                        .map(ForkPayload::fromCommit)
                        .orElseThrow(() -> new IllegalArgumentException(
                                "ledger line " + last.seq() + " of " + cn + " is a fork without its commit")));
                Map<String, byte[]> seg = new LinkedHashMap<>();
                String segPath = c.segmentPath(last.seq());
                seg.put(segPath, Files.readAllBytes(root.resolve(segPath)));
                forkCommit(b, from, seg, last);
            } else if (ref.isPresent()) {
                Optional<Head> published = LedgerTrailers.publishedHeadAt(git, ref.get(), cn);
                if (published.map(Head::seq).orElse(0L) < c.head().seq()) {
                    writers.writerOf(b);
                }
            }
        }
    }

    private static Event lastEvent(Chain c) {
        Iterator<Event> it = c.read(c.head().seq());
        return it.next();
    }

    /** Whether {@code name} is a local branch (the checked-out one included). */
    boolean exists(String name) throws IOException {
        return name.equals(writers.checkedOutName()) || git.branchHead(name).isPresent();
    }

    /** The head commit of a local branch. */
    Optional<ObjectId> head(String name) throws IOException {
        return git.branchHead(name);
    }

    /** Every local branch, sorted by name, with its head and its chain's line count. */
    List<Branches.Info> list() throws IOException {
        List<Branches.Info> out = new ArrayList<>();
        java.util.Set<BranchName> chains = ledger.branches();
        for (Map.Entry<String, ObjectId> e : git.branches().entrySet()) {
            long lines = 0;
            BranchName b = safeName(e.getKey());
            if (b != null && b.replica().isEmpty() && chains.contains(writers.chainOf(b))) {
                lines = ledger.chain(writers.chainOf(b)).head().seq();
            }
            out.add(new Branches.Info(
                    e.getKey(), e.getValue().name(), e.getKey().equals(writers.checkedOutName()), lines));
        }
        return out;
    }

    static BranchName safeName(String s) {
        try {
            return new BranchName(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * {@code branch.create}: a new branch at {@code from} (a branch, default the checked-out one, or
     * any commit), whose chain starts with a {@code branch_fork} line linked to the line the
     * from-commit records, and whose first commit (on top of the from-commit) holds that line.
     */
    Outcome<Forked> create(String name, String from, String actor) throws IOException {
        synchronized (writers) {
            return createLocked(name, from, actor);
        }
    }

    private Outcome<Forked> createLocked(String name, String from, String actor) throws IOException {
        BranchName b;
        try {
            b = new BranchName(name);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
        }
        if (name.contains("@")) {
            return Outcome.fail(
                    ErrorReason.INVALID_REQUEST,
                    "branch names may not contain '@': ledger chains of" + " replicas are named <branch>@<replica>");
        }
        if (git.branchHead(name).isPresent()) {
            return Outcome.fail(
                    new Failure(ErrorReason.CONFLICT, "branch '" + name + "' already exists", Map.of("branch", name)));
        }
        if (ledger.branches().contains(writers.chainOf(b))
                && ledger.chain(writers.chainOf(b)).head().seq() > 0) {
            return Outcome.fail(new Failure(
                    ErrorReason.CONFLICT,
                    "the name '" + name + "' belongs to a deleted branch"
                            + " whose ledger chain stays; choose another name",
                    Map.of("branch", name)));
        }
        if (name.startsWith("proposals/")) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "branch names under proposals/ are the proposals' own");
        }
        java.util.Set<String> taken = new java.util.TreeSet<>(git.branches().keySet());
        ledger.branches().forEach(x -> taken.add(x.gitBranch().value()));
        for (String other : taken) {
            // Git cannot hold refs/heads/a beside refs/heads/a/b, and ledger/a/ would hold ledger/a/b/.
            // Checked before the fork line is written: a line whose ref cannot be made would be redone at every start.
            if (other.startsWith(name + "/") || name.startsWith(other + "/")) {
                return Outcome.fail(
                        ErrorReason.INVALID_REQUEST,
                        "branch '" + name + "' would nest with branch '" + other
                                + "' (one cannot be a path prefix of the other)");
            }
        }
        String fromSpec = from == null ? writers.checkedOutName() : from;
        if (!fromSpec.matches("[0-9a-fA-F]{4,40}")) { // not a commit: a branch name, under the branch-name rule
            try {
                new BranchName(fromSpec);
            } catch (IllegalArgumentException e) {
                return Outcome.fail(ErrorReason.INVALID_REQUEST, "from: " + e.getMessage());
            }
        }
        Optional<ObjectId> fromCommit = git.branchHead(fromSpec);
        if (fromCommit.isEmpty()) {
            fromCommit = fromSpec.matches("[0-9a-fA-F]{4,40}") ? git.resolve(fromSpec) : Optional.empty();
        }
        if (fromCommit.isEmpty()) {
            return Outcome.fail(ErrorReason.NOT_FOUND, "no branch or commit '" + fromSpec + "'");
        }
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        Forked.Link link = linkOf(fromCommit.get());
        String eventId = ids.next().value();
        ObjectNode payload = new ForkPayload(
                        link == null ? null : new ForkPayload.Link(link.branch(), link.seq(), link.lineHash()),
                        fromSpec,
                        fromCommit.get().name(),
                        null,
                        null,
                        Decl.single(eventId))
                .toJson();
        Chain c = ledger.chain(writers.chainOf(b));
        List<Event> ev = c.append(List.of(new EventDraft(
                eventId,
                now.toString(),
                b.value(),
                BranchWriters.actorOr(actor),
                null,
                null,
                null,
                null,
                OP_FORK,
                null,
                null,
                null,
                payload,
                "branch " + name + " from " + fromSpec,
                List.of(),
                null,
                null)));
        c.sync(); // the write-ahead log first: load() finishes a fork whose commit never came
        Event fork = ev.get(0);
        ObjectId commit = forkCommit(b, fromCommit.get(), c.dirtySegments(), fork);
        return Outcome.ok(
                new Forked(name, commit.name(), fromSpec, fromCommit.get().name(), eventId, link));
    }

    private ObjectId forkCommit(BranchName b, ObjectId from, Map<String, byte[]> segments, Event fork)
            throws IOException {
        Instant now = Instant.parse(fork.ts());
        ObjectId commit = git.commitOnNewBranch(
                b.value(),
                from,
                segments,
                CommitFormat.author(fork.actor(), now),
                CommitFormat.committer(now),
                CommitFormat.message(
                        List.of("branch " + b.value() + " from "
                                + EventPayloads.fork(fork)
                                        .map(ForkPayload::from)
                                        .orElse("")),
                        fork.rationale(),
                        fork.actor(),
                        List.of(fork.eventId()),
                        fork.seq(),
                        fork.integrity().lineHash(),
                        writers.replica() == null ? null : writers.chainOf(b).value()));
        excludeChain(writers.chainOf(b));
        return commit;
    }

    /**
     * The chains of branches other than the checked-out one live under {@code ledger/} on disk but
     * are committed only on their own branches: keep them out of the checked-out branch's
     * {@code git status} (the repository's local exclude file, never {@code .gitignore}).
     */
    void excludeChain(BranchName b) throws IOException {
        dev.memoryd.daemon.git.LocalExclude.ensure(
                git.repository().getDirectory().toPath(), "/ledger/" + b.value() + "/");
    }

    /** The chain line {@code commit} records as its ledger head, when there is one (else null). */
    private Forked.Link linkOf(ObjectId commit) throws IOException {
        Optional<Head> h = LedgerTrailers.publishedHeadAt(git, commit, null);
        if (h.isEmpty()) {
            return null;
        }
        return chainHolding(h.get())
                .map(b -> new Forked.Link(b.value(), h.get().seq(), h.get().lineHash()))
                .orElse(null);
    }

    /** The chain whose line at {@code h.seq} has {@code h.lineHash} (commit trailers do not name their chain). */
    Optional<BranchName> chainHolding(Head h) {
        for (BranchName b : ledger.branches()) {
            Chain c = ledger.chain(b);
            if (c.head().seq() >= h.seq()) {
                Iterator<Event> it = c.read(h.seq());
                if (it.hasNext() && it.next().integrity().lineHash().equals(h.lineHash())) {
                    return Optional.of(b);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * {@code branch.delete}: records {@code branch_delete} on the branch's chain (its last line and
     * commit), stops its writer, then retires its ref to {@code refs/memoryd/deleted/<name>}; the
     * commits and the chain stay. With {@code retired} (another root's retired head of the branch,
     * see {@link GitStore#workBeyond}), only if the branch holds no work beyond it when its
     * deletion's turn on the writer comes; otherwise {@code conflict} and nothing recorded. Payload
     * {@code retired_elsewhere} names that commit.
     */
    Outcome<Deleted> delete(String name, String actor, ObjectId retired) throws IOException {
        WritePipeline w;
        BranchName b;
        synchronized (writers) {
            if (name.equals(writers.checkedOutName())) {
                return Outcome.fail(
                        ErrorReason.INVALID_REQUEST, "branch '" + name + "' is checked out; it cannot be deleted");
            }
            Outcome<WritePipeline> o = writers.writer(name);
            if (o instanceof Outcome.Failed<WritePipeline> f) {
                return Outcome.fail(f.failure());
            }
            w = ((Outcome.Ok<WritePipeline>) o).value();
            b = w.branch();
            writers.deleting(b, true); // no new writes from here on
        }
        ObjectNode payload = JsonNodeFactory.instance.objectNode().put("retired_ref", RETIRED_PREFIX + name);
        if (retired != null) {
            payload.put("retired_elsewhere", retired.name());
        }
        GitStore bg = w.git();
        Mutation del = (src, now) -> {
            if (retired != null) {
                // Checked on the writer, after every write queued before: one that came in since the caller looked
                // stays.
                List<ObjectId> work;
                try {
                    work = bg.workBeyond(retired, bg.head(), 5);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                if (!work.isEmpty()) {
                    return new Mutation.Refused(
                            0,
                            new Failure(
                                    ErrorReason.CONFLICT,
                                    "branch '" + name + "' has work " + retired.name() + " does not hold ("
                                            + GitStore.shortIds(work) + "); not deleted",
                                    Map.of("branch", name)));
                }
            }
            return new Mutation.Done(
                    Map.of(),
                    List.of(new Mutation.EventSpec(
                            OP_DELETE, null, null, null, null, payload, List.of(), "deleted branch " + name)),
                    true);
        };
        WriteOutcome out = BranchWriters.await(
                w.submit(WriteRequest.of(del, "delete branch " + name, BranchWriters.actorOr(actor))));
        if (!(out instanceof WriteOutcome.Committed c)) {
            synchronized (writers) {
                writers.deleting(b, false);
            }
            if (out instanceof WriteOutcome.Rejected r && r.failure().reason() == ErrorReason.CONFLICT) {
                return Outcome.fail(r.failure());
            }
            return Outcome.fail(ErrorReason.INTERNAL, "the deletion was not recorded: " + out);
        }
        synchronized (writers) {
            writers.remove(b);
            w.close();
            w.git().close();
            ObjectId tip = ObjectId.fromString(c.commit());
            git.retireRef(Constants.R_HEADS + name, RETIRED_PREFIX + name, tip);
            writers.deleting(b, false);
            return Outcome.ok(new Deleted(
                    name,
                    tip.name(),
                    RETIRED_PREFIX + name,
                    c.events().get(0).eventId(),
                    ledger.chain(b).head().seq()));
        }
    }
}
