package dev.memoryd.daemon.refs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.write.Contextual;
import dev.memoryd.daemon.write.DriftView;
import dev.memoryd.daemon.write.HumanCapture;
import dev.memoryd.daemon.write.HumanSource;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Reconcile: classifies every live reference against its repository's HEAD (reading only), then,
 * on the writer thread, turns what moved on into drift items ({@code drift_flagged}) and closes
 * the items of files back at their pinned bytes ({@code drift_resolved}), in one declaration.
 * What the queue already says is not recorded again; a reference re-pinned or retired between the
 * scan and the write is skipped, since the finding is about its old pin.
 */
final class Reconciler {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final WritePipeline writer;
    private final Path root;
    private final Path realRoot;

    Reconciler(WritePipeline writer, Path root, Path realRoot) {
        this.writer = writer;
        this.root = root;
        this.realRoot = realRoot;
    }

    /** One reference whose file moved on since its pin. */
    record Change(Ref ref, GitHistory.Finding finding) {
        String kind() {
            return switch (finding.kind()) {
                case CHANGED -> RefStore.CHANGED;
                case RENAMED -> RefStore.RENAMED;
                case DELETED -> RefStore.DELETED;
                case UNCHANGED -> throw new IllegalStateException("not a change");
            };
        }

        String newPath() {
            return finding.kind() == GitHistory.Kind.RENAMED ? finding.path() : null;
        }

        /** The drift item's text: what changed, up to its newest commit (a newer commit makes it new). */
        String text() {
            String newest = finding.commits().isEmpty()
                    ? "unknown commits"
                    : "newest commit " + finding.commits().get(0).id().substring(0, 12);
            return switch (finding.kind()) {
                case CHANGED -> ref.path() + " changed; " + newest;
                case RENAMED ->
                    ref.path() + " renamed to " + finding.path() + " (blob "
                            + finding.blob().name().substring(0, 12) + "); " + newest;
                default -> ref.path() + " deleted; " + newest;
            };
        }

        String reason() {
            String where = Ref.display(ref.repo());
            String since = " since its pin at " + ref.commit().name().substring(0, 12) + " (" + finding.commitsTotal()
                    + " commit" + (finding.commitsTotal() == 1 ? "" : "s") + ")";
            return switch (finding.kind()) {
                case CHANGED -> "the referenced file " + ref.path() + " in " + where + " changed" + since;
                case RENAMED ->
                    "the referenced file " + ref.path() + " in " + where + " was renamed to " + finding.path() + since;
                default -> "the referenced file " + ref.path() + " in " + where + " was deleted" + since;
            };
        }
    }

    /** What a scan found; {@code problems}: references whose repository cannot be read. */
    record Scan(int checked, List<Change> changes, List<Ref> unchanged, List<Reconciled.Problem> problems) {}

    /** Classifies every live reference against its repository's HEAD. Reads only. */
    Scan classify(List<Ref> refs) throws IOException {
        Map<String, List<Ref>> byRepo = new TreeMap<>();
        int checked = 0;
        for (Ref r : refs) {
            if (!r.retired()) {
                byRepo.computeIfAbsent(r.repo(), k -> new ArrayList<>()).add(r);
                checked++;
            }
        }
        List<Change> changes = new ArrayList<>();
        List<Ref> unchanged = new ArrayList<>();
        List<Reconciled.Problem> problems = new ArrayList<>();
        for (Map.Entry<String, List<Ref>> e : byRepo.entrySet()) {
            Path dir = Ref.repoDir(realRoot, e.getKey());
            GitHistory g = Files.isDirectory(dir) ? GitHistory.open(dir) : null;
            if (g == null || g.head() == null) {
                for (Ref r : e.getValue()) {
                    problems.add(new Reconciled.Problem(
                            r.id(),
                            r.repo(),
                            r.path(),
                            g == null ? "no Git repository at " + dir + " any more" : "the repository has no commits"));
                }
                if (g != null) {
                    g.close();
                }
                continue;
            }
            try (g) {
                List<String> paths = new ArrayList<>();
                e.getValue().forEach(r -> paths.add(r.path()));
                Map<String, ObjectId> now = g.blobsAtHead(paths);
                for (Ref r : e.getValue()) {
                    GitHistory.Finding f = g.reconcile(r.path(), r.commit(), r.blob(), now.get(r.path()));
                    if (f.kind() == GitHistory.Kind.UNCHANGED) {
                        unchanged.add(r);
                    } else {
                        changes.add(new Change(r, f));
                    }
                }
            }
        }
        return new Scan(checked, changes, unchanged, problems);
    }

    /** See {@link RefStore#reconcile}. */
    Outcome<Reconciled> reconcile(String actor) throws IOException {
        long t0 = System.nanoTime();
        Scan scan = classify(Ref.scan(root));
        Map<String, String> driftIds = new ConcurrentHashMap<>();
        Map<String, Boolean> recorded = new ConcurrentHashMap<>();
        List<String> closed = Collections.synchronizedList(new ArrayList<>());
        Contextual m = ctx -> bind(ctx, scan, driftIds, recorded, closed);
        WriteOutcome out = RefMutations.await(writer.submit(WriteRequest.of(
                m,
                "reconcile " + scan.checked() + " file reference(s) against Git history",
                actor == null ? "memoryd" : actor)));
        if (out instanceof WriteOutcome.Rejected rej) {
            return Outcome.fail(rej.failure());
        }
        List<Reconciled.Finding> findings = new ArrayList<>();
        for (Change c : scan.changes()) {
            findings.add(new Reconciled.Finding(
                    c.ref().id(),
                    c.ref().pointer().value(),
                    driftIds.get(c.ref().id()),
                    recorded.getOrDefault(c.ref().id(), false),
                    c.kind(),
                    c.ref().repo(),
                    c.ref().path(),
                    c.newPath(),
                    c.finding().commitsTotal(),
                    c.finding().commits().stream()
                            .map(x -> new Reconciled.Commit(x.id(), x.author(), x.date(), x.subject()))
                            .toList()));
        }
        return Outcome.ok(new Reconciled(
                scan.checked(),
                scan.unchanged().size(),
                findings,
                List.copyOf(closed),
                scan.problems(),
                out instanceof WriteOutcome.Committed c ? c.commit() : null,
                (System.nanoTime() - t0) / 1_000_000));
    }

    private static Mutation bind(
            Contextual.Context ctx,
            Scan scan,
            Map<String, String> driftIds,
            Map<String, Boolean> recorded,
            List<String> closed) {
        List<Mutation.EventSpec> events = new ArrayList<>();
        DriftView dv = ctx.drift();
        for (Change c : scan.changes()) {
            if (!stillPinned(ctx, c.ref())) {
                continue; // re-pinned or retired since the scan: what it found is about an old pin
            }
            Optional<DriftView.Item> open = dv.openOn(c.ref().pointer());
            String text = c.text();
            if (open.isPresent() && Objects.equals(open.get().text(), text)) {
                driftIds.put(c.ref().id(), open.get().id());
                continue;
            }
            String id = open.map(DriftView.Item::id).orElseGet(ctx::newId);
            driftIds.put(c.ref().id(), id);
            recorded.put(c.ref().id(), true);
            events.add(flagged(c, id, text));
        }
        for (Ref r : scan.unchanged()) {
            Optional<DriftView.Item> open = dv.openOn(r.pointer());
            if (open.isPresent() && stillPinned(ctx, r)) {
                closed.add(open.get().id());
                events.add(HumanCapture.resolved(
                        r.pointer(), open.get().id(), "unchanged", "the referenced file is back at its pinned bytes"));
            }
        }
        return (files, now) -> new Mutation.Done(Map.of(), events, !events.isEmpty());
    }

    private static boolean stillPinned(Contextual.Context ctx, Ref r) {
        return r.stillPinnedIn(ctx.disk(r.pointer()).flatMap(t -> Ref.parse(r.pointer(), t)));
    }

    /** The {@code drift_flagged} event of a change: the item, the reference, and the commits that touched it. */
    private static Mutation.EventSpec flagged(Change c, String id, String text) {
        ObjectNode p = F.objectNode();
        ObjectNode d = p.putObject("drift");
        d.put("id", id);
        d.put("kind", c.kind());
        d.put("reason", c.reason());
        d.put("text", text);
        ObjectNode ref = d.putObject("ref");
        ref.put("id", c.ref().id());
        ref.put("repo", c.ref().repo());
        ref.put("path", c.ref().path());
        ref.put("new_path", c.newPath());
        ref.put("pinned_commit", c.ref().commit().name());
        ref.put("pinned_blob", c.ref().blob().name());
        ref.put("blob", c.finding().blob() == null ? null : c.finding().blob().name());
        Mutation.EventSpec drift = new Mutation.EventSpec(
                HumanCapture.OP_DRIFT,
                c.ref().pointer(),
                null,
                null,
                null,
                p,
                List.of(),
                "reference " + c.ref().path() + ": " + c.kind());
        List<HumanSource.Commit> commits = new ArrayList<>();
        for (GitHistory.Commit x : c.finding().commits()) {
            commits.add(new HumanSource.Commit(x.id(), x.author(), x.date(), x.subject()));
        }
        return HumanCapture.withHuman(
                drift, new HumanSource.GitHistory(c.ref().repo(), c.finding().commitsTotal(), commits));
    }
}
