package dev.memoryd.daemon.refs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.RefPayload;
import dev.memoryd.daemon.write.Contextual;
import dev.memoryd.daemon.write.DriftView;
import dev.memoryd.daemon.write.HumanCapture;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.slices.SliceFile;
import dev.memoryd.grammar.slices.SliceProblem;
import dev.memoryd.grammar.slices.SliceValidator;
import dev.memoryd.ledger.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The pointer files' changes as the writer applies them ({@link Add}, {@link Rewrite}) and as
 * replay redoes them from their events ({@link #replay}): each {@code ref_*} event carries the
 * pointer's whole new frontmatter, so the file is a function of the event alone.
 */
final class RefMutations {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private RefMutations() {}

    /** Writes a new pointer file. */
    record Add(ObjectNode slice) implements Mutation {
        @Override
        public Result apply(dev.memoryd.grammar.FileSource files, Instant now) {
            ObjectNode s = slice.deepCopy();
            ((ObjectNode) s.get("meta")).put("created_at", now.toString()).put("pinned_at", now.toString());
            RepoPath path = Ref.pathOf(s.get("id").asText());
            if (files.read(path).isPresent()) {
                return new Refused(-1, Failure.of(ErrorReason.CONFLICT, path.value() + " already exists"));
            }
            return written(
                    RefStore.OP_ADD,
                    path,
                    s,
                    null,
                    "added reference " + s.path("meta").path("path").asText(),
                    List.of());
        }
    }

    /**
     * Re-pins or retires a reference, decided on the writer thread: refused when the pointer moved
     * on since the caller read it (another re-pin or a retirement won); closes its open drift item.
     * {@code samePin}: the new pin is the old one, so nothing is recorded unless an item is open.
     */
    record Rewrite(
            String op, Ref ref, ObjectNode slice, ObjectNode from, String resolution, String note, boolean samePin)
            implements Contextual {
        @Override
        public Mutation bind(Contextual.Context ctx) {
            if (!ref.stillPinnedIn(ctx.disk(ref.pointer()).flatMap(t -> Ref.parse(ref.pointer(), t)))) {
                return (files, t) -> new Refused(
                        -1,
                        Failure.of(
                                ErrorReason.CONFLICT,
                                "reference " + ref.id() + " was re-pinned or retired meanwhile; read it again"));
            }
            Optional<DriftView.Item> open = ctx.drift().openOn(ref.pointer());
            if (samePin && open.isEmpty()) {
                return (files, t) -> new Done(Map.of(), List.of(), false);
            }
            return (files, t) -> {
                ObjectNode s = slice.deepCopy();
                ObjectNode meta = (ObjectNode) s.get("meta");
                List<EventSpec> extra = new ArrayList<>();
                open.ifPresent(o -> extra.add(HumanCapture.resolved(ref.pointer(), o.id(), resolution, note)));
                if (RefStore.OP_RETIRE.equals(op)) {
                    meta.put("retired_at", t.toString());
                    if (note != null) {
                        meta.put("retired_reason", note);
                    }
                    return written(op, ref.pointer(), s, null, "retired reference " + ref.path(), extra);
                }
                meta.put("pinned_at", t.toString());
                return written(
                        op,
                        ref.pointer(),
                        s,
                        from,
                        "re-pinned reference " + meta.path("path").asText(),
                        extra);
            };
        }
    }

    /** The pointer file's new text and its event (then {@code extra} events), refused if it is not valid Slices v1. */
    private static Mutation.Result written(
            String op,
            RepoPath path,
            ObjectNode slice,
            ObjectNode from,
            String summary,
            List<Mutation.EventSpec> extra) {
        String text = PointerText.render(slice);
        List<SliceProblem> ps = SliceValidator.validate(SliceFile.parse(text));
        if (!ps.isEmpty()) {
            // Built here from checked input; a problem is a bug, reported rather than recorded.
            return new Mutation.Refused(
                    -1,
                    Failure.of(
                            ErrorReason.SPEC_VIOLATION,
                            "the pointer is not valid Slices v1: " + ps.get(0).fieldPath() + ": "
                                    + ps.get(0).message()));
        }
        ObjectNode payload = F.objectNode();
        payload.set("slice", slice);
        if (from != null) {
            payload.set("from", from);
        }
        List<Mutation.EventSpec> events = new ArrayList<>();
        events.add(new Mutation.EventSpec(op, path, null, null, null, payload, List.of(), summary));
        events.addAll(extra);
        return new Mutation.Done(Map.of(path, text), events, true);
    }

    /** Redoes a declaration of the store from its events: each pointer file is its event's frontmatter. */
    static Mutation replay(List<Event> group) {
        return (files, now) -> {
            Map<RepoPath, String> contents = new LinkedHashMap<>();
            List<Mutation.EventSpec> specs = new ArrayList<>();
            for (Event e : group) {
                RepoPath path = e.filePath() == null ? null : RepoPath.of(e.filePath());
                specs.add(new Mutation.EventSpec(
                        e.op(),
                        path,
                        e.sectionAnchor(),
                        e.beforeHash(),
                        e.afterHash(),
                        (ObjectNode) e.payload(),
                        e.evidenceRefs(),
                        e.op() + " " + e.filePath()));
                if (RefStore.OP_ADD.equals(e.op())
                        || RefStore.OP_REPIN.equals(e.op())
                        || RefStore.OP_RETIRE.equals(e.op())) {
                    RefPayload ref = EventPayloads.ref(e)
                            .orElseThrow(() -> new IllegalStateException(
                                    "ledger line " + e.seq() + " is a file reference without its pointer's slice"));
                    contents.put(path, PointerText.render(ref.slice()));
                }
            }
            return new Mutation.Done(contents, specs, true);
        };
    }

    /** The writer's answer; an interrupted wait or a failed future is a refusal that recorded nothing. */
    static WriteOutcome await(CompletableFuture<WriteOutcome> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new WriteOutcome.Rejected(
                    -1, Failure.of(ErrorReason.UNAVAILABLE, "interrupted while waiting for the writer"));
        } catch (ExecutionException e) {
            return new WriteOutcome.Rejected(
                    -1,
                    Failure.of(
                            ErrorReason.UNAVAILABLE,
                            "not recorded: " + e.getCause().getMessage()));
        }
    }
}
