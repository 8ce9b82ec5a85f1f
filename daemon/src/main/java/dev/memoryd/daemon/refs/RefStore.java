package dev.memoryd.daemon.refs;

import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.drift.DriftQueue;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.ledger.IdGenerator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * File references reconciled against Git history. A reference is a pointer slice
 * ({@code .slices/<id>.slice}, {@code kind: pointer}) pinned to the commit and blob at which a
 * file of the memory repository, or of another local Git repository, stood when it was added
 * (or last re-pinned). {@link #reconcile} walks each repository's history since each pin and puts
 * every changed, renamed or deleted reference into the drift queue with the commits that touched
 * it; {@link #repin} moves a pin to where the file stands now (following a rename), {@link #retire}
 * marks a reference as no longer followed. Both close the reference's open drift item.
 *
 * <p>Contract: every change is one declaration through the writer (events {@code ref_add},
 * {@code ref_repin}, {@code ref_retire}, {@code drift_flagged}, {@code drift_resolved}) and one
 * commit; each event carries the whole new frontmatter, so recovery and replay rebuild the
 * pointer files from the ledger alone. Bad input is a {@link Failure} and records nothing. A
 * reconcile that finds what the queue already holds records nothing. Methods block until the
 * writer answers: call them from a connection thread, never the writer's. Thread-safe.
 *
 * <p>Pointer frontmatter: {@code payload.uri} ({@code ./<path>} in the memory repository,
 * {@code git+file://<repo>#<path>} elsewhere), {@code payload.hash} ({@code sha256:} of the
 * file's bytes, the Slices v1 hash form) and {@code payload.size}; {@code meta.ref: git},
 * {@code meta.repo} ({@code .} for the memory repository, else its absolute path),
 * {@code meta.path}, {@code meta.pinned_commit}, {@code meta.blob} (the Git blob id),
 * {@code meta.placed_on}, {@code meta.section}, and {@code meta.retired_at} once retired.
 *
 * <p>This class is the entry point and wiring; the work is in {@link RefAdder}, {@link Reconciler},
 * {@link RefDecisions}, {@link RefMutations} (what the writer applies and replays),
 * {@link Ref} and {@link PointerText} (the pointer file read and written).
 */
public final class RefStore {
    public static final String OP_ADD = dev.memoryd.daemon.events.RefPayload.OP_ADD;
    public static final String OP_REPIN = dev.memoryd.daemon.events.RefPayload.OP_REPIN;
    public static final String OP_RETIRE = dev.memoryd.daemon.events.RefPayload.OP_RETIRE;
    public static final String KIND_PREFIX = "ref_";
    public static final String CHANGED = "ref_changed";
    public static final String RENAMED = "ref_renamed";
    public static final String DELETED = "ref_deleted";
    /** {@code meta.repo} of a file in the memory repository itself. */
    public static final String MEMORY_REPO = ".";

    private final Path root;
    private final DriftQueue drift;
    private final RefAdder adder;
    private final Reconciler reconciler;
    private final RefDecisions decisions;

    public RefStore(WritePipeline writer, IdGenerator ids, Path root, DriftQueue drift) throws IOException {
        Path realRoot = root.toRealPath();
        this.root = root;
        this.drift = drift;
        this.adder = new RefAdder(writer, ids, root, realRoot);
        this.reconciler = new Reconciler(writer, root, realRoot);
        this.decisions = new RefDecisions(writer, root, realRoot, drift);
        for (String op : List.of(OP_ADD, OP_REPIN, OP_RETIRE)) {
            writer.registerReplayer(op, RefMutations::replay);
        }
        drift.resolveKindsWith(KIND_PREFIX, decisions::resolveDrift);
    }

    /**
     * Adds a reference to the request's file, pinned to HEAD of its repository (see {@link NewRef}).
     * Refused, recording nothing, when a placement, the repository or the committed file is not there.
     */
    public Outcome<AddedRef> add(NewRef ref) throws IOException {
        return adder.add(ref);
    }

    /** Every reference (retired ones too when {@code all}), by pointer path order. */
    public List<RefEntry> list(boolean all) throws IOException {
        List<RefEntry> out = new ArrayList<>();
        for (Ref ref : Ref.scan(root)) {
            if (ref.retired() && !all) {
                continue;
            }
            out.add(new RefEntry(
                    ref.id(),
                    ref.pointer().value(),
                    ref.repo(),
                    ref.path(),
                    ref.commit().name(),
                    ref.blob().name(),
                    ref.placedOn(),
                    ref.section(),
                    ref.retired(),
                    drift.openOn(ref.pointer()).map(i -> i.id()).orElse(null)));
        }
        return out;
    }

    /**
     * Walks history since every live reference's pin and records each changed, renamed or deleted
     * one as a drift item ({@code ref_changed}, {@code ref_renamed}, {@code ref_deleted}) carrying
     * the commits that touched it; an open item that already says the same is left alone, one that
     * a newer commit outdates is updated, and one whose file is back at its pinned bytes is closed.
     * One commit when anything is recorded, none otherwise.
     */
    public Outcome<Reconciled> reconcile(String actor) throws IOException {
        return reconciler.reconcile(actor);
    }

    /**
     * Re-pins a reference (by its id or its open drift item's id) to where its file stands at HEAD
     * now, under its new name after a rename, and closes its open drift item (resolution
     * {@code repin}). A deleted file cannot be re-pinned: retire the reference. Nothing is recorded
     * when the pin is current and no item is open.
     */
    public Outcome<Repinned> repin(String id, String actor, String note) throws IOException {
        return decisions.repin(id, actor, note);
    }

    /** Marks a reference retired (kept, never reconciled again) and closes its open drift item (resolution {@code retire}). */
    public Outcome<Retired> retire(String id, String actor, String note) throws IOException {
        return decisions.retire(id, actor, note);
    }
}
