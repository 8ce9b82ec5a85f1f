package dev.memoryd.daemon.peers;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.read.FileReads;
import dev.memoryd.daemon.read.ReadResult;
import dev.memoryd.daemon.read.RootReads;
import dev.memoryd.daemon.read.SliceLinks;
import dev.memoryd.daemon.slices.SliceFiles;
import dev.memoryd.grammar.AppendItem;
import dev.memoryd.grammar.AppendSection;
import dev.memoryd.grammar.CurateItems;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.ReplaceSection;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.TombstoneSection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The served root's reads with {@code NAME:} references sent to the mounted peer they name: a
 * peer's file, slice or links are read at the commit the peer is read at (never its working tree),
 * anything else is the served root's own ({@code local}). Also the one refusal of a write onto a
 * peer. Thread-safe as {@code local} and the peers are.
 */
public final class PeerRouting implements RootReads {
    private final Peers peers;
    private final RootReads local;
    private final UnaryOperator<String> hash;

    /** {@code hash}: the served root's content hash, which a peer's file is hashed with too. */
    public PeerRouting(Peers peers, RootReads local, UnaryOperator<String> hash) {
        this.peers = peers;
        this.local = local;
        this.hash = hash;
    }

    @Override
    public Outcome<ReadResult> read(String path, String section, String at, boolean hashes) throws IOException {
        Optional<Peers.PeerRef> onPeer = peers.resolve(path);
        if (onPeer.isEmpty()) {
            return local.read(path, section, at, hashes);
        }
        String name = onPeer.get().peer().name();
        RepoPath p;
        try {
            p = RepoPath.of(onPeer.get().rest());
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "bad path: " + e.getMessage());
        }
        if (at != null) {
            return Outcome.fail(new Failure(
                    ErrorReason.INVALID_REQUEST,
                    "'" + path + "' is in peer '" + name
                            + "', which is read at its mounted commit: branch and at apply to the served root only",
                    Failure.ordered("field", "at", "peer", name)));
        }
        PeerSnapshot snap = onPeer.get().peer().snapshot();
        return FileReads.of(
                p.value(),
                Optional.of(name),
                ObjectId.fromString(snap.commit()).name(),
                Optional.ofNullable(snap.files().get(p.value())),
                section,
                null,
                hashes ? Optional.of(hash) : Optional.empty());
    }

    @Override
    public Outcome<List<dev.memoryd.grammar.slices.LinkGraph.ExploredLink>> explore(
            String id, String rel, boolean infer) throws IOException {
        Optional<Peers.PeerRef> onPeer = peers.resolve(id);
        if (onPeer.isEmpty()) {
            return local.explore(id, rel, infer);
        }
        var bad = SliceLinks.checkRelation(rel);
        if (bad.isPresent()) {
            return bad.get();
        }
        return SliceLinks.explore(
                new ArrayList<>(onPeer.get().peer().snapshot().files().values()),
                onPeer.get().rest(),
                rel,
                infer,
                Optional.of(onPeer.get().peer().name()));
    }

    @Override
    public Optional<String> sliceText(String id) throws IOException {
        Optional<Peers.PeerRef> onPeer = peers.resolve(id);
        if (onPeer.isEmpty()) {
            return local.sliceText(id);
        }
        return SliceFiles.readIn(
                onPeer.get().peer().snapshot().files(), onPeer.get().rest());
    }

    /** {@code prohibited} naming the peer when one of {@code ops} targets a peer's file. */
    public Optional<Failure> refuseWrite(List<Op> ops, String what) {
        for (Op op : ops) {
            Optional<Failure> onPeer = peers.refuseWrite(opPath(op), what);
            if (onPeer.isPresent()) {
                return onPeer;
            }
        }
        return Optional.empty();
    }

    /** The file an op targets, or null for one that names no path. */
    private static String opPath(Op op) {
        if (op instanceof ReplaceSection o) {
            return o.path().value();
        } else if (op instanceof AppendSection o) {
            return o.path().value();
        } else if (op instanceof AppendItem o) {
            return o.path().value();
        } else if (op instanceof CurateItems o) {
            return o.path().value();
        } else if (op instanceof TombstoneSection o) {
            return o.path().value();
        }
        return null;
    }
}
