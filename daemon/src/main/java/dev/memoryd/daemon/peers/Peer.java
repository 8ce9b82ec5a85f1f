package dev.memoryd.daemon.peers;

import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.substrate.ChunkStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;

/**
 * One mounted peer: its repository opened for reading only (nothing is created or written in it:
 * no key, no {@code .memoryd/} state, no lock, no commit), read at its HEAD, or at the commit its
 * mount pins. A HEAD that moves is followed: the next read after a commit in the peer sees it,
 * as a snapshot of that commit's tree ({@link PeerSnapshot}), so a half-written working tree is
 * never read. Thread-safe.
 */
public final class Peer implements AutoCloseable {
    private final String name;
    private final PeerMount mount;
    private final GitStore git;
    private final ObjectId pinned; // null: follow HEAD
    private PeerSnapshot current; // guarded by this

    private Peer(String name, PeerMount mount, GitStore git, ObjectId pinned) {
        this.name = name;
        this.mount = mount;
        this.git = git;
        this.pinned = pinned;
    }

    /**
     * Opens the peer {@code mount} under the full name {@code name} ({@code outer:inner} for a
     * peer's own peer).
     *
     * @throws IllegalArgumentException when its directory holds no memory root, or its revision
     *     names no commit
     */
    static Peer open(String name, PeerMount mount) throws IOException {
        if (!Files.isDirectory(mount.dir().resolve(".git"))) {
            throw new IllegalArgumentException("peer '" + name + "': no memory root at " + mount.dir()
                    + " (a peer is a directory with a Git repository)");
        }
        GitStore git = GitStore.open(mount.dir(), "HEAD");
        ObjectId pin = null;
        String rev = mount.rev() == null ? "HEAD" : mount.rev();
        Optional<ObjectId> c = git.resolve(rev);
        if (c.isEmpty()) {
            git.close();
            throw new IllegalArgumentException("peer '" + name + "': "
                    + (mount.rev() == null
                            ? "its repository has no commit yet"
                            : "no commit '" + mount.rev() + "' in " + mount.dir()));
        }
        if (mount.rev() != null) {
            pin = c.get();
        }
        return new Peer(name, mount, git, pin);
    }

    public String name() {
        return name;
    }

    public PeerMount mount() {
        return mount;
    }

    GitStore git() {
        return git;
    }

    /** The peer as of its pinned commit or its HEAD now. */
    public synchronized PeerSnapshot snapshot() throws IOException {
        ObjectId c = pinned != null ? pinned : git.resolve("HEAD").orElse(null);
        if (c == null) {
            throw new IOException("peer '" + name + "': HEAD of " + mount.dir() + " names no commit");
        }
        if (current != null && current.commit().equals(c.name())) {
            return current;
        }
        Map<String, String> files = new LinkedHashMap<>();
        for (String p : git.listFiles(c)) {
            if (RootLayout.isContentFile(p)) {
                git.read(c, p).ifPresent(b -> files.put(p, new String(b, StandardCharsets.UTF_8)));
            }
        }
        PeerSnapshot next = new PeerSnapshot(name, c.name(), files, ChunkStore.graphOf(files));
        if (current != null) {
            current.close();
        }
        current = next;
        return next;
    }

    /** The text of {@code path} at {@code commit} of the peer (any file, e.g. its settings). */
    Optional<String> read(String commit, String path) throws IOException {
        return git.read(ObjectId.fromString(commit), path).map(b -> new String(b, StandardCharsets.UTF_8));
    }

    /** The peer's directory, for its own relative peer directories. */
    Path dir() {
        return mount.dir();
    }

    @Override
    public synchronized void close() throws IOException {
        if (current != null) {
            current.close();
        }
        git.close();
    }
}
