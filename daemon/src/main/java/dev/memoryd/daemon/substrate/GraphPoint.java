package dev.memoryd.daemon.substrate;

/**
 * Where a chunk read was answered: the served root's graph on {@code branch}, or mounted peer
 * {@code peer}'s (exactly one of the two), at {@code commit} (null: a root with no commit yet).
 */
public record GraphPoint(String branch, String peer, String commit) {
    public GraphPoint {
        if ((branch == null) == (peer == null)) {
            throw new IllegalArgumentException(
                    "a read is of a branch of the served root or of one peer: give exactly one");
        }
    }

    /** Whether the read was of a mounted peer. */
    public boolean ofPeer() {
        return peer != null;
    }
}
