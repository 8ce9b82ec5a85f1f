package dev.memoryd.daemon.substrate;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.grammar.substrate.Declaration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The one refusal of a declaration that reaches into a mounted peer: changing, placing onto or
 * removing a peer's chunk. Stateless; safe from any thread.
 */
final class PeerReferences {
    private PeerReferences() {}

    /**
     * {@code prohibited} naming the peer when the declaration changes, places onto or removes a
     * peer's chunk; null when it touches none.
     */
    static Failure check(Declaration d, MountedGraphs mounted) {
        List<String[]> refs = new ArrayList<>();
        for (int i = 0; i < d.chunks().size(); i++) {
            Declaration.ChunkDecl c = d.chunks().get(i);
            if (!c.create()) {
                refs.add(new String[] {c.id(), "chunks[" + i + "].id"});
            }
        }
        for (int i = 0; i < d.placements().size(); i++) {
            refs.add(new String[] {d.placements().get(i).chunk(), "placements[" + i + "].chunk"});
            refs.add(new String[] {d.placements().get(i).scope(), "placements[" + i + "].scope"});
        }
        for (int i = 0; i < d.removals().size(); i++) {
            refs.add(new String[] {d.removals().get(i).chunk(), "removals[" + i + "].chunk"});
            refs.add(new String[] {d.removals().get(i).scope(), "removals[" + i + "].scope"});
        }
        for (String[] r : refs) {
            Optional<String> peer = r[0] == null ? Optional.empty() : mounted.peerOf(r[0]);
            if (peer.isPresent()) {
                return new Failure(
                        ErrorReason.PROHIBITED,
                        "'" + r[0] + "' is a chunk of peer '" + peer.get()
                                + "', mounted read-only: declare changes the served root's chunks only",
                        Failure.ordered("peer", peer.get(), "reference", r[0]));
            }
        }
        return null;
    }
}
