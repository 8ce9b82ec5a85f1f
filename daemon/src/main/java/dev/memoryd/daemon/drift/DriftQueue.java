package dev.memoryd.daemon.drift;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.git.HumanActor;
import dev.memoryd.daemon.write.Contextual;
import dev.memoryd.daemon.write.DriftView;
import dev.memoryd.daemon.write.HumanCapture;
import dev.memoryd.daemon.write.HumanSource;
import dev.memoryd.daemon.write.LedgerFold;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.human.HumanEdits;
import dev.memoryd.ledger.Event;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The drift queue: memory files a human's edit (or a replay) left in a state agents must not
 * build on, waiting for a maintainer. It is a fold over the ledger's {@code drift_flagged} and
 * {@code drift_resolved} events, so it survives restarts and every change to it is an event
 * and a commit. Resolutions go through the writer and are decided against the files as they are
 * when the writer gets to them. Thread-safe.
 */
public final class DriftQueue extends LedgerFold implements DriftView {
    /** An open item; {@code text} is the drifted text (null: the file was deleted). */
    public record Entry(
            String id,
            RepoPath path,
            String kind,
            String reason,
            String since,
            String updated,
            String text,
            JsonNode problems,
            JsonNode human) {}

    /** How a maintainer resolves an item. */
    public sealed interface Resolution {}

    /** Records the file as it is now as a human's edit. */
    public record AcceptCurrent() implements Resolution {}

    /**
     * Writes the recorded text back over the drifted one (which stays in the drift event); refused
     * as a conflict while the file holds text the item does not (an edit since, not yet recorded).
     */
    public record Restore() implements Resolution {}

    /** Renames section {@code from} (heading or anchor) back to canonical section {@code to}, then records the file. */
    public record Reanchor(String from, String to) implements Resolution {}

    /**
     * Closes the item and leaves the file as it is; the same text is not flagged again. Refused as a
     * conflict while the file holds text the item does not.
     */
    public record Dismiss() implements Resolution {}

    private final WritePipeline writer;
    private final Map<String, Entry> open = new LinkedHashMap<>();
    private final Map<RepoPath, String> openByPath = new HashMap<>();
    private final Map<RepoPath, String> dismissedSha = new HashMap<>();
    /** Each resolved item's resolution, who chose it and when, to say so when it is asked for again. */
    private final Map<String, String> resolved = new HashMap<>();

    private final Map<String, KindResolver> kindResolvers = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Resolves the items of some kinds instead of the queue: items that are not about a memory
     * file's text (file references: re-pin or retire), for which the resolutions above do not apply.
     */
    public interface KindResolver {
        CompletableFuture<WriteOutcome> resolve(Entry item, Resolution how, String actor, String note);
    }

    /** Hands items whose kind starts with {@code kindPrefix} to {@code r} (register before serving). */
    public void resolveKindsWith(String kindPrefix, KindResolver r) {
        kindResolvers.put(kindPrefix, r);
    }

    public DriftQueue(WritePipeline writer) {
        this.writer = writer;
    }

    @Override
    protected void fold(Event e) {
        // An item of no readable shape is no item a maintainer could act on: it is left out.
        EventPayloads.driftFlagged(e).ifPresent(d -> {
            Entry prior = open.get(d.id());
            RepoPath path = RepoPath.of(e.filePath());
            open.put(
                    d.id(),
                    new Entry(
                            d.id(),
                            path,
                            d.kind(),
                            d.reason(),
                            prior != null ? prior.since() : e.ts(),
                            e.ts(),
                            d.text(),
                            d.problems(),
                            d.human()));
            openByPath.put(path, d.id());
            dismissedSha.remove(path);
            resolved.remove(d.id());
        });
        EventPayloads.driftResolved(e).ifPresent(d -> {
            Entry gone = open.remove(d.id());
            resolved.put(d.id(), d.resolution() + " by " + e.actor() + " at " + e.ts());
            if (gone != null) {
                openByPath.remove(gone.path(), gone.id());
            }
            if ("dismiss".equals(d.resolution()) && e.filePath() != null) {
                dismissedSha.put(RepoPath.of(e.filePath()), d.textSha256());
            }
        });
    }

    @Override
    public synchronized Optional<Item> openOn(RepoPath path) {
        String id = openByPath.get(path);
        return id == null
                ? Optional.empty()
                : Optional.of(new Item(id, open.get(id).text()));
    }

    @Override
    public synchronized java.util.Set<RepoPath> openPaths() {
        return java.util.Set.copyOf(openByPath.keySet());
    }

    @Override
    public synchronized boolean dismissed(RepoPath path, String text) {
        String sha = dismissedSha.get(path);
        return sha != null && sha.equals(sha256(text));
    }

    /** Open items, oldest first. */
    public synchronized List<Entry> list() {
        return new ArrayList<>(open.values());
    }

    public synchronized Optional<Entry> get(String id) {
        return Optional.ofNullable(open.get(id));
    }

    /** Why {@code id} is no open item: resolved already (how, by whom, when), or never one. */
    public synchronized String notOpen(String id) {
        String how = resolved.get(id);
        return how != null
                ? "drift item " + id + " is resolved already (" + how + "); drift.list shows the open ones"
                : "no open drift item " + id + "; drift.list shows the open ones";
    }

    /** Resolves an open item; one declaration (events and a commit) when it succeeds. */
    public CompletableFuture<WriteOutcome> resolve(String id, Resolution how, String actor, String note) {
        Optional<Entry> e = get(id);
        if (e.isEmpty()) {
            return CompletableFuture.completedFuture(
                    new WriteOutcome.Rejected(-1, Failure.of(ErrorReason.NOT_FOUND, notOpen(id))));
        }
        String who = HumanActor.orIdentity(actor, writer.git().repository());
        if (!HumanActor.is(who)) {
            // A drift item waits for a person: an agent resolving it would decide for them.
            return CompletableFuture.completedFuture(new WriteOutcome.Rejected(
                    -1, Failure.of(ErrorReason.PROHIBITED, HumanActor.refusal("resolves drift", who))));
        }
        for (Map.Entry<String, KindResolver> kr : kindResolvers.entrySet()) {
            if (e.get().kind().startsWith(kr.getKey())) {
                return kr.getValue().resolve(e.get(), how, who, note);
            }
        }
        RepoPath path = e.get().path();
        String name = how instanceof AcceptCurrent
                ? "accept_current"
                : how instanceof Restore ? "restore" : how instanceof Reanchor ? "reanchor" : "dismiss";
        Contextual m = ctx -> bind(ctx, id, path, how, name, note);
        return writer.submit(
                WriteRequest.of(m, note == null || note.isBlank() ? "drift " + id + " resolved: " + name : note, who));
    }

    private static Mutation bind(
            Contextual.Context ctx, String id, RepoPath path, Resolution how, String name, String note) {
        Optional<Item> still = ctx.drift().openOn(path);
        if (still.isEmpty() || !still.get().id().equals(id)) {
            return refuse(ErrorReason.NOT_FOUND, "drift item " + id + " was resolved meanwhile");
        }
        Optional<String> disk = ctx.disk(path);
        Optional<String> recorded = ctx.recorded(path);
        if ((how instanceof Restore || how instanceof Dismiss)
                && !java.util.Objects.equals(disk.orElse(null), still.get().text())) {
            // Text the item does not hold yet: a restore would write over words no event has, a
            // dismiss would close the item on a text nobody saw. The watcher records it as the
            // item's text at its next look; decided then.
            return refuse(
                    ErrorReason.CONFLICT,
                    path.value() + " changed since drift item " + id + " recorded it: the edit is recorded in the"
                            + " item within seconds; look at it again ('memoryd drift show " + id + "') and resolve"
                            + " again. Nothing was written");
        }
        Optional<String> notText = ctx.undecodable(path);
        if (notText.isPresent() && (how instanceof AcceptCurrent || how instanceof Reanchor)) {
            // What the item shows in its place (a link's target, a lossy decoding) is not the human's text.
            return refuse(ErrorReason.CONFLICT, notText.get() + "; then resolve again. Nothing was written");
        }
        if (ctx.isLink(path) && how instanceof Restore) {
            return refuse(
                    ErrorReason.CONFLICT,
                    path.value() + " is a symbolic link, which memoryd neither follows nor replaces: remove the"
                            + " link (or put a regular file in its place), then resolve again. Nothing was written");
        }
        List<Mutation.EventSpec> events = new ArrayList<>();
        Map<RepoPath, String> contents = new LinkedHashMap<>();
        HumanSource src = new HumanSource.DriftResolution();
        boolean commitOnly = true;
        if (how instanceof AcceptCurrent) {
            if (disk.isEmpty()) {
                return refuse(
                        ErrorReason.PROHIBITED,
                        path.value() + " was deleted and memory files are never"
                                + " deleted; use --restore to bring it back");
            }
            HumanEdits.Diff d = HumanEdits.diff(ctx.grammar(), path, recorded.orElse(null), disk.get(), ctx.hasher());
            if (d instanceof HumanEdits.Breaks) {
                d = new HumanEdits.WholeFile(
                        disk.get(),
                        HumanEdits.regions(disk.get()).stream()
                                .map(HumanEdits.Region::key)
                                .collect(java.util.stream.Collectors.toSet()));
            }
            if (!(d instanceof HumanEdits.Unchanged)) {
                events.addAll(HumanCapture.editEvents(path, d, src));
                contents.put(path, disk.get());
            }
        } else if (how instanceof Restore) {
            if (recorded.isEmpty()) {
                return refuse(
                        ErrorReason.INVALID_REQUEST,
                        path.value() + " has no recorded text to restore (a human"
                                + " created it); use --dismiss, or --accept-current to record it");
            }
            contents.put(path, recorded.get());
            commitOnly = false;
        } else if (how instanceof Reanchor ra) {
            if (disk.isEmpty()) {
                return refuse(ErrorReason.NOT_FOUND, path.value() + " does not exist; use --restore");
            }
            HumanEdits.Reanchored re = HumanEdits.reanchor(ctx.grammar(), path, disk.get(), ra.from(), ra.to());
            if (re.text() == null) {
                return refuse(ErrorReason.UNKNOWN_SECTION, re.error());
            }
            HumanEdits.Diff d = HumanEdits.diff(ctx.grammar(), path, recorded.orElse(null), re.text(), ctx.hasher());
            if (d instanceof HumanEdits.Breaks b) {
                return refuse(
                        ErrorReason.DRIFT,
                        "after renaming '" + ra.from() + "' to '" + ra.to() + "' the file still breaks the grammar: "
                                + b.reason());
            }
            if (!(d instanceof HumanEdits.Unchanged)) {
                events.addAll(HumanCapture.editEvents(path, d, src));
            }
            contents.put(path, re.text());
            commitOnly = false;
        }
        events.add(
                HumanCapture.resolved(path, id, name, note, how instanceof Dismiss ? sha256(disk.orElse(null)) : null));
        java.util.Set<RepoPath> only = commitOnly ? contents.keySet() : java.util.Set.of();
        return (files, now) -> new Mutation.Done(contents, events, true, only);
    }

    private static Mutation refuse(ErrorReason r, String message) {
        return (files, now) -> new Mutation.Refused(-1, Failure.of(r, message));
    }

    static String sha256(String text) {
        if (text == null) {
            return "absent";
        }
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
