package dev.memoryd.daemon.peers;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code peers} section of a root's {@code memoryd.yaml}: a mapping from peer name to either
 * {@code DIR} / {@code DIR@REV}, or {@code {dir, rev?, peers?}} where {@code peers: true} lets the
 * peer's own peers be seen through it. Directories are relative to the root that names them.
 * Anything else is an {@link IllegalArgumentException} naming the entry.
 */
public final class PeerConfig {
    private static final Set<String> FIELDS = Set.of("dir", "rev", "peers");

    private PeerConfig() {}

    /** The mounts {@code section} declares ({@code null}: none); {@code where} names the file in messages. */
    public static List<PeerMount> parse(JsonNode section, Path base, String where) {
        List<PeerMount> out = new ArrayList<>();
        if (section == null || section.isNull()) {
            return out;
        }
        if (!section.isObject()) {
            throw new IllegalArgumentException(
                    where + ": 'peers' must map peer names to directories" + " (e.g. 'peers: {team: ../team-memory}')");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = section.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.add(entry(e.getKey(), e.getValue(), base, where + ": peers." + e.getKey()));
        }
        return out;
    }

    private static PeerMount entry(String name, JsonNode v, Path base, String where) {
        try {
            if (v.isTextual()) {
                return PeerMount.parse(name + "=" + v.asText(), base, false);
            }
            if (!v.isObject()) {
                throw new IllegalArgumentException("must be a directory or {dir, rev?, peers?}");
            }
            for (Iterator<String> f = v.fieldNames(); f.hasNext(); ) {
                String k = f.next();
                if (!FIELDS.contains(k)) {
                    throw new IllegalArgumentException("unknown field '" + k + "'; known: dir, rev, peers");
                }
            }
            JsonNode dir = v.get("dir");
            JsonNode rev = v.get("rev");
            JsonNode nested = v.get("peers");
            if (dir == null || !dir.isTextual() || dir.asText().isBlank()) {
                throw new IllegalArgumentException("'dir' must be the peer's directory");
            }
            if (rev != null && !rev.isTextual()) {
                throw new IllegalArgumentException("'rev' must be a revision (a commit id, branch or tag)");
            }
            if (nested != null && !nested.isBoolean()) {
                throw new IllegalArgumentException("'peers' must be a boolean (true or false)");
            }
            return new PeerMount(
                    name,
                    base.resolve(dir.asText()),
                    rev == null ? null : rev.asText(),
                    nested != null && nested.asBoolean());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }
}
