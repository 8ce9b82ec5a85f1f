package dev.memoryd.daemon.read;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.grammar.slices.LinkGraph;
import dev.memoryd.grammar.slices.Relations;
import dev.memoryd.grammar.slices.SliceFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * {@code explore} over a set of files' texts: the typed links from a slice id, with inverse,
 * transitive and symmetric inference when asked. Only frontmatter is read, so a pointer's payload
 * is never opened. Pure.
 */
public final class SliceLinks {
    private SliceLinks() {}

    /** invalid_request when {@code rel} is given and is no known relation. */
    public static Optional<Outcome<List<LinkGraph.ExploredLink>>> checkRelation(String rel) {
        if (rel != null && !Relations.isKnown(rel)) {
            return Optional.of(Outcome.fail(
                    ErrorReason.INVALID_REQUEST,
                    "unknown relation '" + rel + "'; known: " + new TreeSet<>(Relations.names())));
        }
        return Optional.empty();
    }

    /**
     * The links of slice {@code id} among the slices in {@code texts}; not_found when no slice has
     * that id and nothing links to it ({@code peer}, if any, named in the message).
     */
    public static Outcome<List<LinkGraph.ExploredLink>> explore(
            List<String> texts, String id, String rel, boolean infer, Optional<String> peer) {
        List<JsonNode> slices = new ArrayList<>();
        boolean found = false;
        for (String text : texts) {
            Optional<JsonNode> s = SliceFile.parse(text).slice();
            if (s.isPresent()) {
                slices.add(s.get());
                found |= id.equals(s.get().path("id").asText(null));
            }
        }
        List<LinkGraph.ExploredLink> links = LinkGraph.of(slices).explore(id, Optional.ofNullable(rel), infer);
        if (!found && links.isEmpty()) {
            return Outcome.fail(
                    ErrorReason.NOT_FOUND,
                    "no slice with id " + id
                            + peer.map(x -> " in peer '" + x + "'").orElse(""));
        }
        return Outcome.ok(links);
    }
}
