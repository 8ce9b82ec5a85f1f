package dev.memoryd.daemon.proposals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.ProposalClosedPayload;
import dev.memoryd.daemon.git.HumanActor;
import dev.memoryd.daemon.write.LedgerFold;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.MemoryDocument;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpParse;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.Event;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Agents' changes to sections users marked for review (file-grammar §13), waiting on branches
 * {@code proposals/<id>}. A fold over {@code proposal_created}, {@code proposal_accepted} and
 * {@code proposal_rejected} events, so it survives restarts. Accepting re-applies the proposal's
 * ops onto the current branch as one declaration whose commit merges the proposal's commit,
 * refused when a section it changes was changed since it was proposed; rejecting records why
 * and leaves the branch in history. Thread-safe.
 */
public final class ProposalBook extends LedgerFold {
    public static final String OP_ACCEPTED = ProposalClosedPayload.OP_ACCEPTED;
    public static final String OP_REJECTED = ProposalClosedPayload.OP_REJECTED;

    /** One proposal; {@code status} is open, accepted or rejected. */
    public record Proposal(
            String id,
            String branch,
            String commit,
            String actor,
            String created,
            String rationale,
            JsonNode ops,
            JsonNode base,
            String status,
            String closedBy,
            String note) {}

    private final WritePipeline writer;
    private final Map<String, Proposal> all = new LinkedHashMap<>();

    public ProposalBook(WritePipeline writer) {
        this.writer = writer;
    }

    @Override
    protected void fold(Event e) {
        // A proposal line of no readable shape names no proposal: it is left out.
        EventPayloads.proposalCreated(e)
                .ifPresent(p -> all.put(
                        p.id(),
                        new Proposal(
                                p.id(),
                                p.branch(),
                                p.commit(),
                                e.actor(),
                                e.ts(),
                                e.rationale(),
                                p.ops(),
                                p.base(),
                                "open",
                                null,
                                null)));
        EventPayloads.proposalClosed(e).ifPresent(p -> {
            Proposal old = all.get(p.id());
            if (old != null) {
                all.put(
                        old.id(),
                        new Proposal(
                                old.id(),
                                old.branch(),
                                old.commit(),
                                old.actor(),
                                old.created(),
                                old.rationale(),
                                old.ops(),
                                old.base(),
                                OP_ACCEPTED.equals(e.op()) ? "accepted" : "rejected",
                                e.actor(),
                                p.note()));
            }
        });
    }

    /** Proposals, oldest first; only open ones unless {@code all}. */
    public synchronized List<Proposal> list(boolean everything) {
        List<Proposal> out = new ArrayList<>();
        for (Proposal p : all.values()) {
            if (everything || p.status().equals("open")) {
                out.add(p);
            }
        }
        return out;
    }

    public synchronized Optional<Proposal> get(String id) {
        return Optional.ofNullable(all.get(id));
    }

    private synchronized boolean isOpen(String id) {
        Proposal p = all.get(id);
        return p != null && p.status().equals("open");
    }

    /** Applies an open proposal onto the branch as it is now: one declaration, one merge commit. */
    public CompletableFuture<WriteOutcome> accept(String id, String actor, String note) {
        String who = HumanActor.orIdentity(actor, writer.git().repository());
        if (!HumanActor.is(who)) {
            return refused(ErrorReason.PROHIBITED, HumanActor.refusal("accepts a proposal", who));
        }
        Optional<Proposal> p = get(id);
        if (p.isEmpty() || !p.get().status().equals("open")) {
            return refused(
                    p.isEmpty() ? ErrorReason.NOT_FOUND : ErrorReason.CONFLICT,
                    p.isEmpty()
                            ? "no proposal " + id + " (see 'memoryd proposals list')"
                            : "proposal " + id + " is already " + p.get().status());
        }
        List<Op> ops = new ArrayList<>();
        for (JsonNode o : p.get().ops()) {
            ObjectNode copy = ((ObjectNode) o).deepCopy();
            copy.remove("before_hash"); // the base hashes below are the check
            OpParse parsed = OpCodec.parse(copy);
            if (!(parsed instanceof OpParse.Ok ok)) {
                throw new IllegalStateException("proposal " + id + " holds an op this daemon cannot parse: " + o);
            }
            ops.add(ok.op());
        }
        return writer.submit(WriteRequest.of(
                new Accept(p.get(), writer.grammarOps(ops), this, note),
                note == null || note.isBlank()
                        ? "accepted proposal " + id + ": " + p.get().rationale()
                        : note,
                who));
    }

    /** Records that an open proposal was rejected; its branch stays in history. */
    public CompletableFuture<WriteOutcome> reject(String id, String actor, String note) {
        String who = HumanActor.orIdentity(actor, writer.git().repository());
        if (!HumanActor.is(who)) {
            return refused(ErrorReason.PROHIBITED, HumanActor.refusal("rejects a proposal", who));
        }
        Optional<Proposal> p = get(id);
        if (p.isEmpty() || !p.get().status().equals("open")) {
            return refused(
                    p.isEmpty() ? ErrorReason.NOT_FOUND : ErrorReason.CONFLICT,
                    p.isEmpty()
                            ? "no proposal " + id + " (see 'memoryd proposals list')"
                            : "proposal " + id + " is already " + p.get().status());
        }
        Mutation m = (files, now) -> isOpen(id)
                ? new Mutation.Done(Map.of(), List.of(closing(OP_REJECTED, p.get(), note)), true)
                : new Mutation.Refused(
                        -1, Failure.of(ErrorReason.CONFLICT, "proposal " + id + " was closed meanwhile"));
        return writer.submit(
                WriteRequest.of(m, note == null || note.isBlank() ? "rejected proposal " + id : note, who));
    }

    private static Mutation.EventSpec closing(String op, Proposal p, String note) {
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        ObjectNode pr = payload.putObject("proposal");
        pr.put("id", p.id());
        pr.put("branch", p.branch());
        pr.put("commit", p.commit());
        if (note != null) {
            pr.put("note", note);
        }
        return new Mutation.EventSpec(
                op,
                null,
                null,
                null,
                null,
                payload,
                List.of(),
                (op.equals(OP_ACCEPTED) ? "accepted" : "rejected") + " proposal " + p.id());
    }

    private static CompletableFuture<WriteOutcome> refused(ErrorReason r, String message) {
        return CompletableFuture.completedFuture(new WriteOutcome.Rejected(-1, Failure.of(r, message)));
    }

    /** The acceptance: base hashes still match, then the ops, then the closing event. */
    private record Accept(Proposal p, Mutation ops, ProposalBook book, String note)
            implements Mutation, WritePipeline.MergeParent {
        @Override
        public Result apply(FileSource files, java.time.Instant now) {
            if (!book.isOpen(p.id())) {
                return new Refused(
                        -1, Failure.of(ErrorReason.CONFLICT, "proposal " + p.id() + " was closed meanwhile"));
            }
            for (JsonNode b : p.base()) {
                if (b.path("path").isNull()
                        || b.path("section").isNull()
                        || b.path("hash").isNull()) {
                    continue;
                }
                RepoPath path = RepoPath.of(b.path("path").asText());
                String anchor = b.path("section").asText();
                String top = anchor.contains("/") ? anchor.substring(0, anchor.indexOf('/')) : anchor;
                Optional<String> text = files.read(path);
                Optional<MemoryDocument.Section> sec = text.flatMap(t -> MemoryDocument.parse(t).h2Sections().stream()
                        .filter(s -> top.equals(s.anchor()))
                        .findFirst());
                String now2 = sec.isPresent() && !anchor.contains("/")
                        ? book.writer
                                .hasher()
                                .hash(MemoryDocument.parse(text.get()).canonicalBody(sec.get()))
                        : null;
                if (sec.isEmpty() || now2 != null && !now2.equals(b.path("hash").asText())) {
                    return new Refused(
                            -1,
                            new Failure(
                                    ErrorReason.CONFLICT,
                                    "section '" + anchor + "' of " + path.value() + " changed since proposal " + p.id()
                                            + " was made; reject it, or make a new one from the current text",
                                    Failure.ordered("path", path.value(), "section", anchor)));
                }
            }
            Result r = ops.apply(files, now);
            if (!(r instanceof Done d)) {
                return r;
            }
            List<EventSpec> events = new ArrayList<>(d.events());
            events.add(closing(OP_ACCEPTED, p, note == null || note.isBlank() ? null : note));
            return new Done(d.newContents(), events, true);
        }

        @Override
        public ObjectId mergeParent() {
            return ObjectId.fromString(p.commit());
        }
    }
}
