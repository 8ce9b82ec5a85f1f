package dev.memoryd.daemon.peers;

import dev.memoryd.daemon.search.SearchIndex;
import dev.memoryd.grammar.substrate.ChunkGraph;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * A mounted peer as of one commit: its memory files and slices (texts by path, from the commit's
 * tree, never the working tree), their chunk graph, and a search index of them built on first
 * use. Immutable but for that index, which {@link #close} releases.
 */
public final class PeerSnapshot implements AutoCloseable {
    private final String peer;
    private final String commit;
    private final Map<String, String> files;
    private final ChunkGraph graph;
    private SearchIndex index; // guarded by this
    private boolean closed; // guarded by this

    PeerSnapshot(String peer, String commit, Map<String, String> files, ChunkGraph graph) {
        this.peer = peer;
        this.commit = commit;
        this.files = Map.copyOf(files);
        this.graph = graph;
    }

    public String peer() {
        return peer;
    }

    public String commit() {
        return commit;
    }

    /** Memory files and slices by path. */
    public Map<String, String> files() {
        return files;
    }

    public ChunkGraph graph() {
        return graph;
    }

    /** Runs {@code fn} on this snapshot's search index; null when the snapshot has been replaced meanwhile. */
    synchronized <T> T withIndex(Duration halfLife, IndexUse<T> fn)
            throws IOException, SearchIndex.BadQuery, InterruptedException {
        if (closed) {
            return null;
        }
        if (index == null) {
            index = SearchIndex.ofSnapshot(files, peer, halfLife);
        }
        return fn.apply(index);
    }

    interface IndexUse<T> {
        T apply(SearchIndex index) throws IOException, SearchIndex.BadQuery, InterruptedException;
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        if (index != null) {
            index.close();
            index = null;
        }
    }
}
