package dev.memoryd.daemon.write;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.events.DriftFlaggedPayload;
import dev.memoryd.daemon.events.DriftResolvedPayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.HumanEditPayload;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.LintProblem;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.human.HumanEdits;
import dev.memoryd.ledger.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Records humans' edits of memory files as events: one {@code human_edit} per changed region
 * (or one for the whole file when its list of sections changed), or a {@code drift_flagged}
 * when the edit breaks the grammar. Never writes the working tree: the files on disk already
 * are the human's. A capture from a human's commit also puts the recorded text back into the
 * daemon's commit for a drifted file, so the branch head always holds what the ledger replays
 * to, while the human's text stays in their commit, on disk and in the drift event.
 */
public final class HumanCapture implements Mutation {
    public static final String OP_EDIT = HumanEditPayload.OP;
    public static final String OP_DRIFT = DriftFlaggedPayload.OP;
    public static final String OP_RESOLVED = DriftResolvedPayload.OP;

    /** One file: its recorded text and the human's (null: absent). */
    public record Item(RepoPath path, String recorded, String human) {}

    private final Contextual.Context ctx;
    private final List<Item> items;
    private final HumanSource source;

    /** @param source where the edits come from, recorded in each event's payload as {@code human} */
    public HumanCapture(Contextual.Context ctx, List<Item> items, HumanSource source) {
        this.ctx = ctx;
        this.items = List.copyOf(items);
        this.source = java.util.Objects.requireNonNull(source, "source");
    }

    private boolean fromCommit() {
        return source instanceof HumanSource.Commits;
    }

    @Override
    public Result apply(FileSource files, Instant now) {
        Map<RepoPath, String> contents = new LinkedHashMap<>();
        List<EventSpec> events = new ArrayList<>();
        for (Item it : items) {
            Optional<DriftView.Item> open = ctx.drift().openOn(it.path());
            boolean asFlagged = open.isPresent() && Objects.equals(open.get().text(), it.human());
            if (asFlagged && !fromCommit()) {
                continue; // unchanged since it was flagged: it waits for the maintainer
            }
            Optional<String> undecodable = ctx.undecodable(it.path());
            HumanEdits.Diff d = undecodable.isPresent()
                    ? new HumanEdits.Breaks("grammar_broken", undecodable.get(), List.of())
                    : HumanEdits.diff(ctx.grammar(), it.path(), it.recorded(), it.human(), ctx.hasher());
            if (d instanceof HumanEdits.Unchanged) {
                open.ifPresent(o -> events.add(
                        resolved(it.path(), o.id(), "reverted_by_human", "the file is back to its recorded text")));
                continue;
            }
            if (d instanceof HumanEdits.Breaks found) {
                HumanEdits.Breaks b = withMove(it, found);
                if (fromCommit()) {
                    contents.put(it.path(), it.recorded()); // null removes a file the human added
                }
                if (ctx.drift().dismissed(it.path(), it.human()) || asFlagged) {
                    if (fromCommit()) {
                        // The human's commit put a text the queue holds (or a maintainer dismissed) back in
                        // the branch: memoryd's commit puts the recorded one back, under an event of its own.
                        events.add(
                                flagged(it.path(), open.map(DriftView.Item::id).orElseGet(ctx::newId), b, it.human()));
                    }
                    continue;
                }
                events.add(flagged(it.path(), open.map(DriftView.Item::id).orElseGet(ctx::newId), b, it.human()));
                continue;
            }
            events.addAll(editEvents(it.path(), d, source));
            contents.put(it.path(), it.human());
            open.ifPresent(o -> events.add(
                    resolved(it.path(), o.id(), "fixed_by_human", "a later edit follows the grammar again")));
        }
        return new Done(contents, events, !events.isEmpty() || !contents.isEmpty(), contents.keySet());
    }

    /**
     * {@code b} with its reason naming the other end of a move, when this capture holds one: a
     * deleted file whose very text is a new file elsewhere (a {@code git mv}, a renamed
     * directory). A memory file's path is its identity, so a move is drift at both ends; saying
     * only "deleted" would hide where the text went.
     */
    private HumanEdits.Breaks withMove(Item it, HumanEdits.Breaks b) {
        for (Item other : items) {
            if (other == it) {
                continue;
            }
            if (it.human() == null && other.recorded() == null && Objects.equals(other.human(), it.recorded())) {
                return new HumanEdits.Breaks(
                        b.kind(),
                        "the file was moved to " + other.path().value() + "; a memory file's path is its identity,"
                                + " so memory files are never moved or deleted: move it back, or restore it here",
                        b.problems());
            }
            if (it.recorded() == null && other.human() == null && Objects.equals(it.human(), other.recorded())) {
                return new HumanEdits.Breaks(
                        b.kind(), "moved here from " + other.path().value() + ": " + b.reason(), b.problems());
            }
        }
        return b;
    }

    /** The {@code human_edit} events of a non-breaking edit. */
    public static List<EventSpec> editEvents(RepoPath path, HumanEdits.Diff d, HumanSource source) {
        List<EventSpec> out = new ArrayList<>();
        if (d instanceof HumanEdits.Regions r) {
            for (HumanEdits.RegionChange c : r.changes()) {
                ObjectNode p = JsonNodeFactory.instance.objectNode();
                p.set("human", human(source));
                p.put("region", c.key());
                p.put("index", c.index());
                p.put("text", c.after());
                // Bytes only (line ends, spacing the canonical form drops): the region's text is
                // recorded for replay, but no section's history names the human for it.
                boolean bytesOnly = c.beforeHash() != null && c.beforeHash().equals(c.afterHash());
                out.add(new EventSpec(
                        OP_EDIT,
                        path,
                        bytesOnly ? null : c.key(),
                        c.beforeHash(),
                        c.afterHash(),
                        p,
                        List.of(),
                        "human edit of " + path.value() + " (" + c.key() + (bytesOnly ? ": bytes only, same text" : "")
                                + ")"));
            }
        } else if (d instanceof HumanEdits.WholeFile w) {
            ObjectNode p = JsonNodeFactory.instance.objectNode();
            p.set("human", human(source));
            p.put("whole_file", true);
            p.put("text", w.text());
            ArrayNode ch = p.putArray("changed");
            w.changedKeys().stream().sorted().forEach(ch::add);
            out.add(new EventSpec(OP_EDIT, path, null, null, null, p, List.of(), "human edit of " + path.value()));
        } else {
            throw new IllegalArgumentException("not an edit: " + d);
        }
        return out;
    }

    private EventSpec flagged(RepoPath path, String id, HumanEdits.Breaks b, String text) {
        return flagged(path, id, b, text, source);
    }

    /** A {@code drift_flagged} event for {@code path} holding the drifted {@code text}. */
    public static EventSpec flagged(RepoPath path, String id, HumanEdits.Breaks b, String text, HumanSource source) {
        ObjectNode p = JsonNodeFactory.instance.objectNode();
        ObjectNode dr = p.putObject("drift");
        dr.put("id", id);
        dr.put("kind", b.kind());
        dr.put("reason", b.reason());
        dr.put("text", text);
        ArrayNode probs = dr.putArray("problems");
        for (LintProblem lp : b.problems()) {
            probs.addObject().put("line", lp.line()).put("rule", lp.rule()).put("message", lp.message());
        }
        p.set("human", human(source));
        return new EventSpec(
                OP_DRIFT, path, null, null, null, p, List.of(), "drift in " + path.value() + ": " + b.kind());
    }

    /** The one writer of {@code payload.human}: the source's name, then its own members. */
    private static ObjectNode human(HumanSource source) {
        ObjectNode h = JsonNodeFactory.instance.objectNode().put("source", source.name());
        if (source instanceof HumanSource.WorkTree w && w.kept() != null) {
            h.put("kept", w.kept());
        } else if (source instanceof HumanSource.Commits c) {
            commits(h, c.commits());
        } else if (source instanceof HumanSource.GitHistory g) {
            h.put("repo", g.repo());
            h.put("commits_total", g.commitsTotal());
            commits(h, g.commits());
        }
        return h;
    }

    private static void commits(ObjectNode h, List<HumanSource.Commit> commits) {
        ArrayNode cs = h.putArray("commits");
        for (HumanSource.Commit x : commits) {
            cs.addObject()
                    .put("id", x.id())
                    .put("author", x.author())
                    .put("date", x.date())
                    .put("subject", x.subject());
        }
    }

    /**
     * {@code draft} with {@code source} recorded as its payload's {@code human}, after the members
     * it has: for an event whose own members another room writes (a file reference's drift).
     */
    public static EventSpec withHuman(EventSpec draft, HumanSource source) {
        ObjectNode p = draft.payload().deepCopy();
        p.set("human", human(source));
        return new EventSpec(
                draft.op(),
                draft.path(),
                draft.sectionAnchor(),
                draft.beforeHash(),
                draft.afterHash(),
                p,
                draft.evidenceRefs(),
                draft.summary());
    }

    /** A {@code drift_resolved} event. */
    public static EventSpec resolved(RepoPath path, String id, String resolution, String note) {
        return resolved(path, id, resolution, note, null);
    }

    /**
     * A {@code drift_resolved} event; {@code textSha256} (null: none) is the SHA-256 of the text a
     * dismissal leaves on disk, so that the same text is not flagged again.
     */
    public static EventSpec resolved(RepoPath path, String id, String resolution, String note, String textSha256) {
        ObjectNode p = JsonNodeFactory.instance.objectNode();
        ObjectNode dr = p.putObject("drift");
        dr.put("id", id);
        dr.put("resolution", resolution);
        if (note != null) {
            dr.put("note", note);
        }
        if (textSha256 != null) {
            dr.put("text_sha256", textSha256);
        }
        return new EventSpec(
                OP_RESOLVED,
                path,
                null,
                null,
                null,
                p,
                List.of(),
                "drift " + resolution.replace('_', ' ') + " in " + path.value());
    }

    /** Region keys of a path that the events of one capture changed (for the conflict check). */
    static Map<RepoPath, Set<String>> changedKeys(List<EventSpec> events) {
        Map<RepoPath, Set<String>> out = new HashMap<>();
        for (EventSpec e : events) {
            if (!OP_EDIT.equals(e.op())) {
                continue;
            }
            Set<String> keys = out.computeIfAbsent(e.path(), k -> new HashSet<>());
            HumanEditPayload edit = EventPayloads.humanEdit(e.payload())
                    .orElseThrow(() -> new IllegalArgumentException("a human edit without its region: " + e.payload()));
            if (edit instanceof HumanEditPayload.WholeFile w) {
                keys.addAll(w.changed());
            } else if (e.sectionAnchor() != null) { // a bytes-only change of a region changed no text
                keys.add(((HumanEditPayload.Region) edit).region());
            }
        }
        return out;
    }

    /** Paths a capture flagged as drift. */
    static Set<RepoPath> drifted(List<EventSpec> events) {
        Set<RepoPath> out = new HashSet<>();
        for (EventSpec e : events) {
            if (OP_DRIFT.equals(e.op())) {
                out.add(e.path());
            }
        }
        return out;
    }

    /**
     * Redoes recorded human edits and drift events from the ledger: a region replacement needs
     * the region at the same position with the same key; drift events change no recorded text.
     * The working tree is never written (recovery leaves the human's files as they are).
     */
    public static Mutation replay(List<Event> group) {
        return (files, now) -> {
            Map<RepoPath, String> contents = new LinkedHashMap<>();
            List<EventSpec> specs = new ArrayList<>();
            for (Event e : group) {
                RepoPath path = e.filePath() == null ? null : RepoPath.of(e.filePath());
                specs.add(new EventSpec(
                        e.op(),
                        path,
                        e.sectionAnchor(),
                        e.beforeHash(),
                        e.afterHash(),
                        (ObjectNode) e.payload(),
                        e.evidenceRefs(),
                        e.op() + " " + e.filePath()));
                if (!OP_EDIT.equals(e.op())) {
                    continue;
                }
                HumanEditPayload edit = EventPayloads.humanEdit(e)
                        .orElseThrow(() -> new IllegalStateException(
                                "ledger line " + e.seq() + " is a human edit without its region or text"));
                if (edit instanceof HumanEditPayload.WholeFile w) {
                    contents.put(path, w.text());
                    continue;
                }
                HumanEditPayload.Region p = (HumanEditPayload.Region) edit;
                String current = contents.containsKey(path)
                        ? contents.get(path)
                        : files.read(path).orElse(null);
                if (current == null) {
                    throw new IllegalStateException("ledger line " + e.seq() + " edits region '" + p.region() + "' of "
                            + path.value() + ", which does not exist");
                }
                String next = HumanEdits.applyRegion(current, p.region(), p.index(), p.text())
                        .orElseThrow(() -> new IllegalStateException("ledger line " + e.seq()
                                + " edits region '" + p.region() + "' at position "
                                + p.index()
                                + " of " + path.value() + ", but the file has another region there"));
                contents.put(path, next);
            }
            return new Done(contents, specs, true, contents.keySet());
        };
    }
}
