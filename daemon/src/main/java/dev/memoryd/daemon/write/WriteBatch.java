package dev.memoryd.daemon.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.events.DriftFlaggedPayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.ledger.EventDraft;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.PersonIdent;

/**
 * The writer's state within one batch, as {@link Contextual} mutations see it: the texts the
 * batch's accepted declarations leave, what each file on disk held when the batch first read it,
 * and the declarations accepted so far. Lives for one batch, on the writer thread only.
 */
final class WriteBatch implements Contextual.Context {
    /** A declaration the batch accepted: its events, the files it leaves and its ledger drafts. */
    record Accepted(
            Pending p,
            List<Mutation.EventSpec> specs,
            Map<RepoPath, String> contents,
            List<EventDraft> drafts,
            PersonIdent author,
            String proposal) {}

    private final WriterState s;
    final Map<RepoPath, String> overlay = new HashMap<>(); // a null value: the file is gone
    final java.util.Set<RepoPath> diskWrites = new java.util.HashSet<>();
    /**
     * Files to take out of the working tree once the batch is published, each with the bytes it
     * must still hold (a stale copy of a file commits made elsewhere deleted).
     */
    final Map<String, byte[]> diskRemovals = new java.util.LinkedHashMap<>();
    /**
     * Files whose recorded text this batch took from commits a human made with git, each with the
     * text memoryd recorded for it before (absent for a file that did not exist).
     */
    final Map<RepoPath, String> fromCommits = new HashMap<>();

    private long heldChars;

    /**
     * Whether {@code p}'s text in this batch is what a human's commit holds and no declaration of
     * the batch wrote it since: the working copy may hold other text (an edit saved after the
     * commit, or a commit made from an index that lacked what the file holds), so agents read that.
     */
    boolean committedByHuman(RepoPath p) {
        return fromCommits.containsKey(p) && !diskWrites.contains(p);
    }

    /**
     * Whether {@code text} (a working copy of {@code p} captured as a human's edit) is the text
     * memoryd recorded for {@code p} before a human's commit took it back, in this batch or since an
     * earlier one: the working copy never left memoryd's text, and the commit was made from an
     * index that lacked it.
     */
    boolean keptMemorydsText(RepoPath p, String text) {
        String before = fromCommits.containsKey(p) ? fromCommits.get(p) : s.beforeHumanCommit.get(p);
        return text != null && text.equals(before);
    }

    final Map<RepoPath, Optional<DriftView.Item>> drifts = new HashMap<>();
    /** Files whose human text this batch cannot take as a memory file's text (not UTF-8, a symbolic link), with why. */
    private final Map<RepoPath, String> undecodable = new java.util.HashMap<>();

    private final java.util.Set<RepoPath> links = new java.util.HashSet<>();

    /** What each file on disk held when this batch first read it (the base its writes assume). */
    final Map<RepoPath, Optional<String>> diskSeen = new HashMap<>();

    final List<Accepted> accepted = new ArrayList<>();

    WriteBatch(WriterState s) {
        this.s = s;
    }

    @Override
    public Optional<String> recorded(RepoPath p) {
        if (overlay.containsKey(p)) {
            return Optional.ofNullable(overlay.get(p));
        }
        return s.recordedText(p);
    }

    @Override
    public Optional<String> disk(RepoPath p) {
        if (diskWrites.contains(p)) {
            return Optional.ofNullable(overlay.get(p));
        }
        // One read per file per batch: every decision of the batch rests on the same base, which
        // is also what the check before each rename compares against.
        Optional<String> seen = diskSeen.get(p);
        if (seen != null) {
            return seen;
        }
        try {
            Optional<String> t = s.readSettled(p);
            diskSeen.put(p, t);
            return t;
        } catch (dev.memoryd.daemon.layout.NotMemoryText e) {
            // Shown as the text it would be, and never taken for it: a capture of it is drift.
            undecodable.put(p, e.getMessage());
            if (e.isLink()) {
                links.add(p);
            }
            Optional<String> t = Optional.of(e.shown());
            diskSeen.put(p, t);
            return t;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Optional<String> undecodable(RepoPath p) {
        return Optional.ofNullable(undecodable.get(p));
    }

    @Override
    public boolean isLink(RepoPath p) {
        return links.contains(p);
    }

    /** Notes that the human's version of {@code p} (from a commit) is not a memory file's text, and why. */
    void undecodable(RepoPath p, String why) {
        undecodable.put(p, why);
    }

    @Override
    public DriftView drift() {
        return new DriftView() {
            @Override
            public Optional<Item> openOn(RepoPath path) {
                Optional<Item> in = drifts.get(path);
                return in != null ? in : s.drift.openOn(path);
            }

            @Override
            public boolean dismissed(RepoPath path, String text) {
                return s.drift.dismissed(path, text);
            }
        };
    }

    @Override
    public String newId() {
        return s.ids.next().value();
    }

    @Override
    public Grammar grammar() {
        return s.grammars.inForce(this::recorded);
    }

    @Override
    public SectionHasher hasher() {
        return s.hasher;
    }

    /** The file source of agents' mutations: this batch's texts, else the working tree. */
    FileSource source() {
        return p -> overlay.containsKey(p) ? Optional.ofNullable(overlay.get(p)) : disk(p);
    }

    void accept(Pending p, Mutation.Done d, WriteRequest req, PersonIdent author, Instant now) {
        accept(p, d, req, author, now, null);
    }

    void accept(Pending p, Mutation.Done d, WriteRequest req, PersonIdent author, Instant now, String proposal) {
        List<EventDraft> ds = drafts(req, d.events(), now); // first: a draft that cannot be a line changes nothing
        overlay.putAll(d.newContents());
        for (RepoPath path : d.newContents().keySet()) {
            if (!d.commitOnly().contains(path)) {
                diskWrites.add(path);
            }
        }
        for (Mutation.EventSpec e : d.events()) {
            if (HumanCapture.OP_DRIFT.equals(e.op())) {
                DriftFlaggedPayload dr = EventPayloads.driftFlagged(e.payload())
                        .orElseThrow(
                                () -> new IllegalArgumentException("a drift event without its item: " + e.payload()));
                drifts.put(e.path(), Optional.of(new DriftView.Item(dr.id(), dr.text())));
            } else if (HumanCapture.OP_RESOLVED.equals(e.op())) {
                drifts.put(e.path(), Optional.empty());
            }
        }
        accepted.add(new Accepted(p, d.events(), d.newContents(), ds, author, proposal));
        for (String t : d.newContents().values()) {
            heldChars += t == null ? 0 : t.length();
        }
    }

    /**
     * The characters of the texts the accepted declarations leave, each kept until its commit is
     * built: a batch of many declarations on one large file holds every version of it.
     */
    long heldChars() {
        return heldChars;
    }

    private List<EventDraft> drafts(WriteRequest req, List<Mutation.EventSpec> specs, Instant now) {
        List<EventDraft> out = new ArrayList<>();
        String declId = null;
        String fingerprint = req.idempotencyKey() == null ? null : req.fingerprint();
        for (int i = 0; i < specs.size(); i++) {
            Mutation.EventSpec o = specs.get(i);
            String eventId = s.ids.next().value();
            if (declId == null) {
                declId = eventId;
            }
            ObjectNode payload = o.payload().deepCopy();
            ObjectNode decl = payload.putObject("decl");
            decl.put("id", declId);
            decl.put("index", i);
            decl.put("count", specs.size());
            if (fingerprint != null) {
                decl.put(WriteRequest.FINGERPRINT, fingerprint);
            }
            if (req.provenance() != null) {
                payload.set("provenance", ProvenanceJson.of(req.provenance()));
            }
            EntityRef ent = o.path() == null ? new EntityRef(null, null, null) : EntityRef.of(o.path());
            out.add(new EventDraft(
                    eventId,
                    now.toString(),
                    s.branch.value(),
                    req.actor(),
                    ent.userId(),
                    ent.entityType(),
                    ent.entityId(),
                    o.path() == null ? null : o.path().value(),
                    o.op(),
                    o.sectionAnchor(),
                    o.beforeHash(),
                    o.afterHash(),
                    payload,
                    req.rationale(),
                    o.evidenceRefs() == null ? List.of() : o.evidenceRefs(),
                    req.idempotencyKey(),
                    req.toolCallId()));
        }
        return out;
    }
}
