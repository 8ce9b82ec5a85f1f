package dev.memoryd.daemon.substrate;

import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.grammar.substrate.ChunkGraph;
import java.io.IOException;
import java.util.Optional;

/**
 * The chunk graphs of the peers mounted beside the served root, read-only. A reference names a
 * peer's chunk as {@code NAME:chunk-or-name-path}; one without a mounted peer's name in front is
 * the served root's.
 */
public interface MountedGraphs {
    /** No peers: every reference is the served root's. */
    MountedGraphs NONE = new MountedGraphs() {
        @Override
        public Optional<String> peerOf(String ref) {
            return Optional.empty();
        }

        @Override
        public Optional<PeerGraph> graph(String peer) {
            return Optional.empty();
        }
    };

    /** The mounted peer {@code ref} names, or empty when it is the served root's. */
    Optional<String> peerOf(String ref);

    /** The graph of mounted peer {@code peer} as of the commit it is read at. */
    Optional<PeerGraph> graph(String peer) throws IOException;

    /** {@code ref} without the name of {@code peer} in front. */
    static String rest(String ref, String peer) {
        return ref.substring(peer.length() + 1);
    }

    /** A peer's graph at {@code commit} of its repository {@code git} (opened read-only). */
    record PeerGraph(String peer, ChunkGraph graph, String commit, GitStore git) {}
}
