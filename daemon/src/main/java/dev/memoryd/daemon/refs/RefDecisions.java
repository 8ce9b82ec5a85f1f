package dev.memoryd.daemon.refs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.drift.DriftQueue;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.RepoPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A maintainer's decisions on a reference: re-pin it where its file stands now, retire it, or
 * {@code drift resolve} its drift item (only {@code --accept-current}, which re-pins). The reference
 * is named by its pointer id or its open drift item's id; each decision closes that item.
 */
final class RefDecisions {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final WritePipeline writer;
    private final Path root;
    private final Path realRoot;
    private final DriftQueue drift;

    RefDecisions(WritePipeline writer, Path root, Path realRoot, DriftQueue drift) {
        this.writer = writer;
        this.root = root;
        this.realRoot = realRoot;
        this.drift = drift;
    }

    /** A reference named by its pointer id or by the id of its open drift item. */
    private Outcome<Ref> find(String id) throws IOException {
        if (id == null || id.isBlank()) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "missing parameter 'id'");
        }
        Optional<DriftQueue.Entry> item = drift.get(id);
        RepoPath pointer;
        if (item.isPresent() && item.get().kind().startsWith(RefStore.KIND_PREFIX)) {
            pointer = item.get().path();
        } else if (Ref.ID.matcher(id).matches()) {
            pointer = Ref.pathOf(id);
        } else {
            return Outcome.fail(
                    ErrorReason.INVALID_REQUEST, "id must be a reference id or a drift item id, not '" + id + "'");
        }
        Path f = root.resolve(pointer.value());
        if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
            return Outcome.fail(ErrorReason.NOT_FOUND, "no file reference " + id + " (see 'memoryd refs list')");
        }
        Optional<Ref> r = Ref.parse(pointer, Files.readString(f, StandardCharsets.UTF_8));
        if (r.isEmpty()) {
            return Outcome.fail(
                    ErrorReason.INVALID_REQUEST,
                    "slice " + id + " is not a file reference (a pointer with meta.ref: git)");
        }
        return Outcome.ok(r.get());
    }

    /** See {@link RefStore#repin}. */
    Outcome<Repinned> repin(String id, String actor, String note) throws IOException {
        Outcome<Ref> found = find(id);
        if (found instanceof Outcome.Failed<Ref> f) {
            return Outcome.fail(f.failure());
        }
        Ref ref = ((Outcome.Ok<Ref>) found).value();
        if (ref.retired()) {
            return Outcome.fail(
                    ErrorReason.INVALID_REQUEST, "reference " + ref.id() + " is retired; add a new one instead");
        }
        Path dir = Ref.repoDir(realRoot, ref.repo());
        try (GitHistory g = Files.isDirectory(dir) ? GitHistory.open(dir) : null) {
            if (g == null || g.head() == null) {
                return Outcome.fail(
                        ErrorReason.NOT_FOUND,
                        "no Git repository with commits at " + dir
                                + " any more; retire the reference with 'memoryd refs retire " + ref.id() + "'");
            }
            GitHistory.Finding f = g.reconcile(
                    ref.path(),
                    ref.commit(),
                    ref.blob(),
                    g.blobsAtHead(List.of(ref.path())).get(ref.path()));
            if (f.kind() == GitHistory.Kind.DELETED) {
                return Outcome.fail(new Failure(
                        ErrorReason.NOT_FOUND,
                        ref.path() + " was deleted from "
                                + Ref.display(ref.repo())
                                + " and cannot be re-pinned; retire the reference with 'memoryd refs retire "
                                + ref.id() + "'",
                        Failure.ordered("id", ref.id(), "path", ref.path())));
            }
            ObjectNode slice = ref.slice().deepCopy();
            PointerText.describe(slice, ref.repo(), f.path(), g.head(), f.blob(), g.digest(f.blob()));
            ObjectNode meta = (ObjectNode) slice.get("meta");
            meta.put("path", f.path());
            meta.put("pinned_commit", g.head().name());
            meta.put("blob", f.blob().name());
            ObjectNode from = F.objectNode()
                    .put("path", ref.path())
                    .put("pinned_commit", ref.commit().name())
                    .put("blob", ref.blob().name());
            boolean samePin = f.kind() == GitHistory.Kind.UNCHANGED && g.head().equals(ref.commit());
            WriteOutcome out = RefMutations.await(writer.submit(WriteRequest.of(
                    new RefMutations.Rewrite(RefStore.OP_REPIN, ref, slice, from, "repin", note, samePin),
                    note == null ? "re-pin reference " + ref.path() : note,
                    actor == null ? "maintainer" : actor)));
            if (out instanceof WriteOutcome.Rejected rej) {
                return Outcome.fail(rej.failure());
            }
            return Outcome.ok(new Repinned(
                    ref.id(),
                    f.path(),
                    ref.path(),
                    g.head().name(),
                    f.blob().name(),
                    out instanceof WriteOutcome.Committed c ? c.commit() : null));
        }
    }

    /** See {@link RefStore#retire}. */
    Outcome<Retired> retire(String id, String actor, String note) throws IOException {
        Outcome<Ref> found = find(id);
        if (found instanceof Outcome.Failed<Ref> f) {
            return Outcome.fail(f.failure());
        }
        Ref ref = ((Outcome.Ok<Ref>) found).value();
        if (ref.retired()) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "reference " + ref.id() + " is already retired");
        }
        ObjectNode slice = ref.slice().deepCopy();
        WriteOutcome out = RefMutations.await(writer.submit(WriteRequest.of(
                new RefMutations.Rewrite(RefStore.OP_RETIRE, ref, slice, null, "retire", note, false),
                note == null ? "retire reference " + ref.path() : note,
                actor == null ? "maintainer" : actor)));
        if (out instanceof WriteOutcome.Rejected rej) {
            return Outcome.fail(rej.failure());
        }
        return Outcome.ok(new Retired(ref.id(), out instanceof WriteOutcome.Committed c ? c.commit() : null));
    }

    /**
     * {@code drift resolve} on a reference's item: {@code --accept-current} re-pins it (the file as it
     * is now becomes the pin); the other resolutions are about memory files' text and are refused
     * with the commands that do apply.
     */
    CompletableFuture<WriteOutcome> resolveDrift(
            DriftQueue.Entry item, DriftQueue.Resolution how, String actor, String note) {
        String pointerId = item.path()
                .value()
                .substring(".slices/".length(), item.path().value().length() - ".slice".length());
        if (RefStore.DELETED.equals(item.kind())) {
            // Nothing is left to pin: repinning (or accepting the current file) can only fail.
            return CompletableFuture.completedFuture(new WriteOutcome.Rejected(
                    -1,
                    new Failure(
                            ErrorReason.INVALID_REQUEST,
                            "drift item " + item.id() + " is a file reference whose file was deleted (" + item.kind()
                                    + "); retire the" + " reference with 'memoryd refs retire " + pointerId + "'",
                            Map.of("id", pointerId))));
        }
        if (!(how instanceof DriftQueue.AcceptCurrent)) {
            return CompletableFuture.completedFuture(new WriteOutcome.Rejected(
                    -1,
                    new Failure(
                            ErrorReason.INVALID_REQUEST,
                            "drift item " + item.id() + " is a file reference (" + item.kind()
                                    + "); resolve it with 'memoryd refs repin "
                                    + pointerId
                                    + "' (or drift resolve --accept-current, which re-pins) or 'memoryd refs retire "
                                    + pointerId
                                    + "'",
                            Map.of("id", pointerId))));
        }
        try {
            Outcome<Repinned> o = repin(pointerId, actor, note);
            if (o instanceof Outcome.Failed<Repinned> f) {
                return CompletableFuture.completedFuture(new WriteOutcome.Rejected(-1, f.failure()));
            }
            String commit = ((Outcome.Ok<Repinned>) o).value().commit();
            return CompletableFuture.completedFuture(
                    commit == null
                            ? new WriteOutcome.Unchanged(null)
                            : new WriteOutcome.Committed(commit, List.of(), false));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
