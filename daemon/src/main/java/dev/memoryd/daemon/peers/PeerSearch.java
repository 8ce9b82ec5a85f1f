package dev.memoryd.daemon.peers;

import dev.memoryd.daemon.search.SearchHit;
import dev.memoryd.daemon.search.SearchIndex;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Full-text search of mounted peers: each peer's memory files and slices at the commit it is
 * read at, indexed once per commit and kept until the peer's HEAD moves. Each hit names its
 * {@code peer} (and no branch: a peer is read at a commit).
 */
public final class PeerSearch {
    private PeerSearch() {}

    /** Up to {@code limit} hits from each peer, in each peer's score order. */
    public static List<SearchHit> search(
            Peers peers, String q, int limit, Duration halfLife, Instant now, String source)
            throws IOException, SearchIndex.BadQuery, InterruptedException {
        List<SearchHit> out = new ArrayList<>();
        for (Peer p : peers.all()) {
            List<SearchHit> hits = null;
            while (hits == null) { // null: the snapshot was replaced by a newer commit meanwhile
                hits = p.snapshot().withIndex(halfLife, ix -> ix.search(q, limit, now, source));
            }
            for (SearchHit h : hits) {
                out.add(h.onPeer(p.name()));
            }
        }
        return out;
    }

    /**
     * The served root's {@code local} hits and every peer's, best {@code limit} by score; with no
     * peer mounted, {@code local} as it is.
     */
    public static List<SearchHit> merge(
            List<SearchHit> local, Peers peers, String q, int limit, Duration halfLife, Instant now, String source)
            throws IOException, SearchIndex.BadQuery, InterruptedException {
        if (peers.isEmpty()) {
            return local;
        }
        List<SearchHit> hits = new ArrayList<>(local);
        hits.addAll(search(peers, q, limit, halfLife, now, source));
        hits.sort(java.util.Comparator.comparingDouble((SearchHit h) -> -h.score()));
        return hits.size() > limit ? List.copyOf(hits.subList(0, limit)) : hits;
    }
}
