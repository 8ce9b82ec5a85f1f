package dev.memoryd.daemon.search;

import dev.memoryd.grammar.slices.Staleness;
import java.util.Objects;
import java.util.Optional;

/**
 * One hit of a full-text search: where the matching text is, how well it matched and how fresh
 * it is. A hit comes from a branch of the served root or from a mounted peer, never both.
 *
 * @param path the file, relative to its root
 * @param section a memory section's heading; null for a slice or a chunk
 * @param anchor a memory section's anchor; null when it has none, or for a slice or a chunk
 * @param sliceId the file's slice id; null when it has none
 * @param chunk the chunk the text is (a chunk file's id, a memory section's {@code id#anchor});
 *     null for a slice that is not a chunk
 * @param title null when the file has none
 * @param source the provenance source a filtered search matched; empty for an unfiltered one
 * @param branch the branch searched; null for a peer's hit
 * @param score Lucene's score, rounded to three decimals
 * @param snippet the start of the matching text
 * @param freshness empty when the text carries no date
 * @param peer the mounted peer the hit comes from; null for the served root's own
 */
public record SearchHit(
        String path,
        String section,
        String anchor,
        String sliceId,
        String chunk,
        String title,
        Optional<String> source,
        String branch,
        double score,
        String snippet,
        Optional<Staleness.TimeStaleness> freshness,
        String peer) {
    public SearchHit {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(snippet, "snippet");
        Objects.requireNonNull(freshness, "freshness");
        if ((branch == null) == (peer == null)) {
            throw new IllegalArgumentException(
                    "a hit names its branch or its peer, one of them: " + branch + ", " + peer);
        }
        if (!Double.isFinite(score)) {
            throw new IllegalArgumentException("score is not finite: " + score);
        }
    }

    /** This hit as mounted peer {@code name}'s: it names the peer and no branch. */
    public SearchHit onPeer(String name) {
        return new SearchHit(
                path,
                section,
                anchor,
                sliceId,
                chunk,
                title,
                source,
                null,
                score,
                snippet,
                freshness,
                Objects.requireNonNull(name, "name"));
    }
}
