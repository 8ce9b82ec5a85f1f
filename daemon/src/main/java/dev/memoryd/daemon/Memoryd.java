package dev.memoryd.daemon;

import dev.memoryd.daemon.git.CommitBatch;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.IndexFormat;
import dev.memoryd.daemon.git.LineEndConversion;
import dev.memoryd.daemon.git.LocalExclude;
import dev.memoryd.daemon.git.PlainClone;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.KeyCheck;
import dev.memoryd.ledger.KeyRing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The entry point to a memory root: {@link #init} and {@link #cloneRoot} make one, and each way of
 * opening one returns the type that says what can be done with it: {@link #open} a
 * {@link ServingRoot} (the daemon: recovers and writes), {@link #openReadOnly} a
 * {@link ReadOnlyRoot} (reads, lint and verify, changing nothing), {@link #openForCheck} a
 * {@link ReplayCheckRoot} ({@code replay --verify} without a daemon).
 */
public final class Memoryd {
    public static final String VERSION = Version.VERSION;
    public static final String PROTOCOL_VERSION = "1";
    /** Size limit a slice's contract {@code overflow} policy applies to (bytes of body). */
    public static final long MAX_SLICE_BODY = 1L << 20;

    private Memoryd() {}

    /**
     * Opens a root for serving writes; the caller holds the root's daemon lock. The key file must
     * exist ({@link #createKeyIfMissing} makes one) and be the one the ledger was written with.
     *
     * @throws KeyRing.MissingKeyFile when it does not exist
     * @throws KeyCheck.WrongKeyFile when it is another key, before anything is repaired or written
     */
    public static ServingRoot open(MemorydConfig cfg) throws IOException {
        return ServingRoot.open(cfg);
    }

    /**
     * Opens a root for reads, lint and verify without a daemon; changes nothing on disk. The key
     * file is read only when something needs it (hashes, verify), and never created.
     */
    public static ReadOnlyRoot openReadOnly(MemorydConfig cfg) throws IOException {
        return ReadOnlyRoot.open(cfg);
    }

    /**
     * Opens a root for {@code replay --verify} without a daemon: no lock, no recovery, no writer
     * thread, and no byte written; the replayed chain is the one the branch head records.
     *
     * @throws KeyRing.MissingKeyFile when the key file does not exist
     */
    public static ReplayCheckRoot openForCheck(MemorydConfig cfg) throws IOException {
        return ReplayCheckRoot.open(cfg);
    }

    /**
     * {@code memoryd clone}: a new root cloned from {@code url} (remote {@code origin}) that writes
     * its own ledger chains as replica {@code replica} (generated when null), so it can sync with
     * the root it came from and any other clone. Its chain starts at its first {@code serve}.
     */
    public static List<String> cloneRoot(MemorydConfig cfg, String url, String replica) throws IOException {
        Path root = cfg.root();
        if (Files.exists(root)
                && (!Files.isDirectory(root) || Files.list(root).findAny().isPresent())) {
            throw new IllegalArgumentException(root + " exists and is not empty; clone into a new directory");
        }
        String id = replica == null ? newReplicaId(cfg) : replica;
        if (!BranchName.REPLICA.matcher(id).matches()) {
            throw new IllegalArgumentException("invalid replica id '" + id + "': use 1-32 of a-z, 0-9 and -");
        }
        List<String> did = new ArrayList<>();
        try (org.eclipse.jgit.api.Git g = org.eclipse.jgit.api.Git.cloneRepository()
                .setURI(url)
                .setDirectory(root.toFile())
                .setBranch(cfg.branch())
                .setRemote("origin")
                .call()) {
            org.eclipse.jgit.lib.StoredConfig c = g.getRepository().getConfig();
            c.setBoolean("core", null, "autocrlf", false);
            c.setString("memoryd", null, "replica", id);
            c.save();
            if (g.getRepository().resolve(org.eclipse.jgit.lib.Constants.R_HEADS + cfg.branch()) == null) {
                throw new IllegalArgumentException(url + " has no branch '" + cfg.branch() + "' (use --branch)");
            }
        } catch (org.eclipse.jgit.api.errors.GitAPIException e) {
            throw new IOException("cannot clone " + url + ": " + e.getMessage(), e);
        }
        did.add("cloned " + url + " into " + root + " (remote origin, branch " + cfg.branch() + ")");
        did.add("replica id " + id + ": this root writes its ledger chains as <branch>@" + id);
        Path state = cfg.stateDir();
        Files.createDirectories(state);
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        if (!Files.exists(cfg.keyFile(), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            if (KeyCheck.hasLines(cfg.ledgerDir())) {
                did.add("no key file at " + cfg.keyFile() + ": copy the key file of the roots this one syncs with"
                        + " there (mode 0600) before 'memoryd serve', which refuses any other key");
            } else {
                KeyRing.loadOrCreate(cfg.keyFile(), cfg.random());
                did.add("created key file " + cfg.keyFile() + " (mode 0600; the roots this one syncs with need the"
                        + " same file)");
            }
        }
        return did;
    }

    /** A generated replica id: "r" and seven of a lower-case base-32 alphabet without look-alikes. */
    private static String newReplicaId(MemorydConfig cfg) {
        StringBuilder sb = new StringBuilder("r");
        String alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
        for (int i = 0; i < 7; i++) {
            sb.append(alphabet.charAt(cfg.random().nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /**
     * Gives a root made by a plain {@code git clone} ({@link PlainClone}) a generated replica id, as
     * {@code memoryd clone} would have, so its daemon writes chains of its own ({@code
     * <branch>@<id>}) instead of forking the chains of the root it came from. Called at a root's
     * first serve, holding the root's lock. Returns what it did, for a person; empty when the root
     * is no such clone. Changes only the repository's own config ({@code git config
     * memoryd.replica}).
     */
    public static Optional<String> adoptPlainClone(MemorydConfig cfg) throws IOException {
        try (org.eclipse.jgit.lib.Repository repo = new org.eclipse.jgit.storage.file.FileRepositoryBuilder()
                .setGitDir(cfg.root().resolve(".git").toFile())
                .setMustExist(true)
                .build()) {
            Optional<PlainClone> clone = PlainClone.of(repo);
            if (clone.isEmpty()) {
                return Optional.empty();
            }
            String id = newReplicaId(cfg);
            org.eclipse.jgit.lib.StoredConfig c = repo.getConfig();
            c.setString("memoryd", null, "replica", id);
            c.save();
            return Optional.of("a git clone of " + clone.get().from() + ", served for the first time: replica id " + id
                    + " (git config " + GitStore.REPLICA_KEY + "), so this root writes its ledger chains as <branch>@"
                    + id + " and syncs with the root it came from");
        }
    }

    /**
     * A conversion of memory files' line ends that git would make in {@code cfg}'s working tree,
     * which keeps the root from being served ({@link LineEndConversion}); empty when git keeps them
     * byte for byte. Reads; changes nothing.
     */
    public static Optional<LineEndConversion> lineEndConversion(MemorydConfig cfg) throws IOException {
        try (GitStore g = GitStore.open(cfg.root(), cfg.branch())) {
            return LineEndConversion.of(g.repository(), g.head());
        }
    }

    /**
     * The form of git's index in {@code cfg}'s root that keeps it from being served ({@link
     * IndexFormat}: split or sparse); empty when memoryd can read it. Reads; changes nothing.
     */
    public static Optional<IndexFormat> indexFormat(MemorydConfig cfg) throws IOException {
        try (GitStore g = GitStore.open(cfg.root(), cfg.branch())) {
            return IndexFormat.of(g.repository());
        }
    }

    /**
     * Creates the key file when there is none and the root's ledger has no line yet ({@code init} and
     * {@code serve} only); true when it did.
     *
     * @throws KeyRing.MissingKeyFile when there is none and the ledger has lines (a new key could not
     *     verify them)
     */
    public static boolean createKeyIfMissing(MemorydConfig cfg) {
        return KeyCheck.createForNewLedger(cfg.keyFile(), cfg.ledgerDir(), cfg.random());
    }

    /**
     * Creates a memory root: a Git repository (JGit) on the configured branch with a
     * {@code .gitignore} for local state, a 0700 state directory and the key file; optionally
     * copies an example tree in. Idempotent.
     *
     * @throws IllegalArgumentException when {@code exampleTree} is not a directory, before anything
     *     is created
     */
    public static List<String> init(MemorydConfig cfg, Path exampleTree) throws IOException {
        if (exampleTree != null && !Files.isDirectory(exampleTree)) {
            throw new IllegalArgumentException("--example " + exampleTree + ": no such directory (name a users/ tree,"
                    + " e.g. ./users in the memoryd checkout); nothing was created");
        }
        Path root = cfg.root();
        java.util.Optional<dev.memoryd.daemon.layout.LinkedWorktree> linked =
                dev.memoryd.daemon.layout.LinkedWorktree.of(root);
        if (linked.isPresent()) {
            throw new IllegalArgumentException(linked.get().refusal());
        }
        List<String> did = new ArrayList<>();
        Files.createDirectories(root);
        if (!Files.isDirectory(root.resolve(".git"))) {
            GitStore.init(root, cfg.branch());
            did.add("created Git repository " + root);
        }
        Path state = cfg.stateDir();
        if (!Files.isDirectory(state)) {
            Files.createDirectories(state);
            did.add("created " + state);
        }
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        Path ignore = root.resolve(".gitignore");
        if (!Files.exists(ignore)) {
            Files.writeString(
                    ignore,
                    "# memoryd local state: socket, caches, indexes (rebuildable)\n"
                            + RootLayout.LOCAL_STATE.get(0) + "\n"
                            + "# memoryd's temp files while it replaces a file (removed at start after a crash)\n"
                            + RootLayout.LOCAL_STATE.get(1) + "\n");
            did.add("wrote .gitignore");
        }
        // Also where no edit of .gitignore reaches: a human's `git add -A` never takes memoryd's state in.
        if (LocalExclude.ensure(root.resolve(".git"), RootLayout.LOCAL_STATE.toArray(String[]::new))) {
            did.add("wrote .git/info/exclude");
        }
        if (createKeyIfMissing(cfg)) {
            did.add("created key file " + cfg.keyFile() + " (mode 0600; keep it outside the repository)");
        }
        if (exampleTree != null) {
            try (Stream<Path> s = Files.walk(exampleTree)) {
                for (Path src : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                    Path dst = root.resolve("users")
                            .resolve(exampleTree.relativize(src).toString());
                    if (!Files.exists(dst)) {
                        Files.createDirectories(dst.getParent());
                        Files.copy(src, dst);
                    }
                }
            }
            did.add("copied example tree from " + exampleTree);
        }
        try (GitStore g = GitStore.open(root, cfg.branch())) {
            if (g.head() == null) {
                Map<String, byte[]> files = new java.util.LinkedHashMap<>();
                try (Stream<Path> s = Files.walk(root)) {
                    for (Path p : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                        String rel = root.relativize(p).toString().replace('\\', '/');
                        if (!rel.startsWith(".git/") && !rel.startsWith(".memoryd/")) {
                            files.put(rel, Files.readAllBytes(p));
                        }
                    }
                }
                Instant now = cfg.clock().instant();
                org.eclipse.jgit.lib.PersonIdent who = new org.eclipse.jgit.lib.PersonIdent(
                        "memoryd", "memoryd@localhost", now, java.time.ZoneOffset.UTC);
                try (CommitBatch b = g.batch()) {
                    b.commit(files, who, who, "memoryd: initialise memory repository\n");
                    b.publish().orThrow();
                    g.updateIndex(root, b.written());
                }
                did.add("made the initial commit");
            }
        }
        return did;
    }
}
