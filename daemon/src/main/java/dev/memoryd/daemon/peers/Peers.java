package dev.memoryd.daemon.peers;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.substrate.MountedGraphs;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The peers mounted beside one served root, and the one place a {@code NAME:rest} reference is
 * resolved. A top-level peer is named as its mount says; a peer's own peer, visible only when
 * the mount that reaches it says {@code peers: true} at every level, is named by the path of
 * mounts to it ({@code team:lab}). A mount whose directory is already on that path (the served
 * root itself, or a peer that mounts its own mounter) is left out, so a cycle of mounts ends.
 * A peer's own peers are those its {@code memoryd.yaml} names at the commit it was first read at.
 */
public final class Peers implements MountedGraphs, AutoCloseable {
    public static final Peers NONE = new Peers(Map.of());
    private static final String SETTINGS = "memoryd.yaml";
    private static final YAMLMapper YAML = new YAMLMapper();

    private final Map<String, Peer> byName;

    private Peers(Map<String, Peer> byName) {
        this.byName = byName;
    }

    /**
     * Opens the peers {@code mounts} of the root at {@code root}, and theirs where a mount says so.
     *
     * @throws IllegalArgumentException naming the peer when one cannot be mounted (no memory root,
     *     no such revision, two mounts of one name, a settings file that does not parse)
     */
    public static Peers open(Path root, List<PeerMount> mounts) throws IOException {
        if (mounts.isEmpty()) {
            return NONE;
        }
        Map<String, Peer> out = new LinkedHashMap<>();
        try {
            Set<Path> path = new HashSet<>();
            path.add(real(root, "the served root"));
            mountAll(null, mounts, path, out);
        } catch (IOException | RuntimeException e) {
            for (Peer p : out.values()) {
                p.close();
            }
            throw e;
        }
        return new Peers(out);
    }

    private static void mountAll(String prefix, List<PeerMount> mounts, Set<Path> path, Map<String, Peer> out)
            throws IOException {
        for (PeerMount m : mounts) {
            String name = prefix == null ? m.name() : prefix + ":" + m.name();
            if (out.containsKey(name)) {
                throw new IllegalArgumentException("peer '" + name + "' is mounted twice");
            }
            Path dir = real(m.dir(), "peer '" + name + "'");
            if (path.contains(dir)) {
                continue; // already mounted on the way here: a cycle
            }
            Peer p = Peer.open(name, m);
            out.put(name, p);
            if (m.nested()) {
                Set<Path> deeper = new HashSet<>(path);
                deeper.add(dir);
                mountAll(name, ownMounts(p), deeper, out);
            }
        }
    }

    /** The peers a peer's own settings name, at the commit it is read at. */
    private static List<PeerMount> ownMounts(Peer p) throws IOException {
        Optional<String> text = p.read(p.snapshot().commit(), SETTINGS);
        if (text.isEmpty()) {
            return List.of();
        }
        JsonNode n;
        try {
            n = YAML.readTree(text.get());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "peer '" + p.name() + "': " + SETTINGS + " is not valid YAML: " + e.getOriginalMessage());
        }
        return n == null || !n.isObject()
                ? List.of()
                : PeerConfig.parse(n.get("peers"), p.dir(), "peer '" + p.name() + "': " + SETTINGS);
    }

    private static Path real(Path dir, String what) throws IOException {
        try {
            return dir.toRealPath();
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(what + ": no directory " + dir);
        }
    }

    /** Every mounted peer, top-level ones first in mount order, each followed by its own. */
    public Collection<Peer> all() {
        return byName.values();
    }

    public boolean isEmpty() {
        return byName.isEmpty();
    }

    /** The peer {@code ref} names (the longest mounted name before a {@code :}), or empty: the served root's. */
    @Override
    public Optional<String> peerOf(String ref) {
        if (ref == null || byName.isEmpty()) {
            return Optional.empty();
        }
        String best = null;
        for (int i = ref.indexOf(':'); i > 0; i = ref.indexOf(':', i + 1)) {
            String name = ref.substring(0, i);
            if (byName.containsKey(name)) {
                best = name;
            }
        }
        return Optional.ofNullable(best);
    }

    /** A reference split into its peer and the rest, when it names a mounted peer. */
    public record PeerRef(Peer peer, String rest) {}

    /** {@code ref} as a peer reference, or empty when it is the served root's. */
    public Optional<PeerRef> resolve(String ref) {
        return peerOf(ref).map(n -> new PeerRef(byName.get(n), MountedGraphs.rest(ref, n)));
    }

    @Override
    public Optional<PeerGraph> graph(String peer) throws IOException {
        Peer p = byName.get(peer);
        if (p == null) {
            return Optional.empty();
        }
        PeerSnapshot s = p.snapshot();
        return Optional.of(new PeerGraph(peer, s.graph(), s.commit(), p.git()));
    }

    /** {@code prohibited} naming the peer when {@code ref} (a path or reference a write targets) is a peer's. */
    public Optional<Failure> refuseWrite(String ref, String what) {
        return peerOf(ref)
                .map(n -> new Failure(
                        ErrorReason.PROHIBITED,
                        "'" + ref + "' is in peer '" + n + "', mounted read-only: " + what
                                + " changes the served root only",
                        Failure.ordered("peer", n, "reference", ref)));
    }

    /** Each peer's name, directory, pinned revision, commit read and whether its own peers are visible. */
    public List<Map<String, Object>> describe() throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Peer p : byName.values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", p.name());
            m.put("dir", p.mount().dir().toString());
            if (p.mount().rev() != null) {
                m.put("rev", p.mount().rev());
            }
            m.put("commit", p.snapshot().commit());
            m.put("peers", p.mount().nested());
            out.add(m);
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        for (Peer p : byName.values()) {
            p.close();
        }
    }
}
