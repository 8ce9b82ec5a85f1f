package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.app.Daemon;
import dev.memoryd.ledger.BranchName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code memoryd serve}: runs the daemon on the root's socket until SIGTERM; exit 1 when the root
 * cannot be served (not a memory root, no such branch, a bad settings file, another daemon serving it).
 */
@Command(name = "serve", description = "Run the daemon on <root>/.memoryd/memoryd.sock until SIGTERM.")
final class ServeCmd extends Common implements Callable<Integer> {
    @Option(names = "--init", description = "create the root first if it does not exist")
    boolean init;

    @Option(
            names = "--branch",
            defaultValue = MemorydConfig.DEFAULT_BRANCH,
            description = "the branch to serve: the one checked out in the working tree (writes are refused while"
                    + " another is; other branches stay reachable through each method's branch parameter)")
    String branch;

    @Option(
            names = "--idle-timeout-ms",
            defaultValue = "10000",
            description = "close a connection stalled mid-line after this long")
    long idleMs;

    @Option(names = "--max-line-bytes", defaultValue = "1048576", description = "request size limit")
    int maxLine;

    @Option(
            names = "--max-connections",
            defaultValue = "1024",
            description = "refuse client connections beyond this many open at once (lowered if the open-file"
                    + " limit is too low to leave the writer its descriptors)")
    int maxConnections;

    @Option(
            names = "--quiet-ms",
            defaultValue = "2000",
            description = "capture a human's edits once the working tree has been still this long")
    long quietMs;

    @Option(
            names = "--rescan-s",
            defaultValue = "60",
            description = "rescan every memory file this often, in case the file watch missed an event (0: never)")
    long rescanS;

    @Option(
            names = "--no-watch",
            description = "do not watch the working tree (edits are still captured"
                    + " before any agent write to their file)")
    boolean noWatch;

    @Option(
            names = "--peer",
            paramLabel = "NAME=DIR[@REV]",
            description =
                    "mount the memory root DIR read-only as peer NAME, read at its Git HEAD (or at REV);"
                            + " references name its chunks and files as NAME:... (repeatable; replaces the root's own peer of that name)")
    List<String> peers = new ArrayList<>();

    @Option(
            names = "--peer-nested",
            paramLabel = "NAME",
            description =
                    "let peer NAME's own peers (its memoryd.yaml's) be seen through it, as NAME:THEIRS:... (repeatable)")
    List<String> nestedPeers = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        if (maxConnections < 1) {
            System.err.println("memoryd: --max-connections must be at least 1, not " + maxConnections);
            return Main.PROBLEMS;
        }
        try {
            new BranchName(branch);
        } catch (IllegalArgumentException e) {
            System.err.println("memoryd: --branch: " + e.getMessage());
            return Main.USAGE;
        }
        List<dev.memoryd.daemon.peers.PeerMount> mounts = new ArrayList<>();
        try {
            for (String spec : peers) {
                dev.memoryd.daemon.peers.PeerMount m =
                        dev.memoryd.daemon.peers.PeerMount.parse(spec, Path.of(""), false);
                mounts.add(m.withNested(nestedPeers.contains(m.name())));
            }
            for (String n : nestedPeers) {
                if (mounts.stream().noneMatch(m -> m.name().equals(n))) {
                    throw new IllegalArgumentException("--peer-nested " + n + ": no --peer " + n + "=DIR");
                }
            }
        } catch (IllegalArgumentException e) {
            System.err.println("memoryd: --peer: " + e.getMessage());
            return Main.USAGE;
        }
        MemorydConfig cfg = config().withBranch(branch)
                .withIdleTimeout(Duration.ofMillis(idleMs))
                .withMaxLineBytes(maxLine)
                .withMaxConnections(maxConnections)
                .withWatch(Duration.ofMillis(quietMs), Duration.ofSeconds(rescanS))
                .withPeers(mounts);
        java.util.Optional<dev.memoryd.daemon.layout.LinkedWorktree> linked =
                dev.memoryd.daemon.layout.LinkedWorktree.of(cfg.root());
        if (linked.isPresent()) {
            System.err.println("memoryd: " + linked.get().refusal());
            return Main.PROBLEMS;
        }
        if (init || !Files.isDirectory(cfg.root().resolve(".git"))) {
            if (!init && Files.exists(cfg.root()) && !isEmptyDir(cfg.root())) {
                System.err.println("memoryd: " + cfg.root() + " is not a memory root; run 'bin/memoryd init --root "
                        + cfg.root() + "'");
                return Main.PROBLEMS;
            }
            Memoryd.init(cfg, null).forEach(System.out::println);
        } else if (Memoryd.createKeyIfMissing(cfg)) {
            System.out.println("created key file " + cfg.keyFile() + " (mode 0600; keep it outside the repository)");
        }
        if (!hasBranch(cfg)) {
            System.err.println("memoryd: " + cfg.root() + " has no branch '" + branch + "' to serve (--branch names the"
                    + " branch checked out in its working tree)");
            return Main.PROBLEMS;
        }
        java.util.Optional<dev.memoryd.daemon.git.LineEndConversion> eol = Memoryd.lineEndConversion(cfg);
        if (eol.isPresent()) {
            System.err.println("memoryd: " + eol.get().refusal(cfg.root()));
            return Main.PROBLEMS;
        }
        java.util.Optional<dev.memoryd.daemon.git.IndexFormat> index = Memoryd.indexFormat(cfg);
        if (index.isPresent()) {
            System.err.println("memoryd: " + cfg.root() + ": " + index.get().refusal(cfg.root()));
            return Main.PROBLEMS;
        }
        try {
            dev.memoryd.daemon.RootSettings.load(cfg.root()); // a bad settings file: one clear line, not a trace
        } catch (IllegalArgumentException e) {
            System.err.println("memoryd: " + cfg.root() + ": " + e.getMessage());
            return Main.PROBLEMS;
        }
        Daemon d;
        try {
            d = Daemon.start(cfg, !noWatch);
        } catch (Daemon.AlreadyServing e) {
            System.err.println("memoryd: " + e.getMessage());
            return Main.PROBLEMS;
        } catch (dev.memoryd.ledger.KeyCheck.WrongKeyFile | dev.memoryd.ledger.KeyRing.MissingKeyFile e) {
            System.err.println("memoryd: " + e.getMessage());
            return Main.USAGE;
        } catch (IllegalStateException e) {
            System.err.println("memoryd: " + e.getMessage()); // e.g. a peer that cannot be mounted
            return Main.PROBLEMS;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(d::close, "memoryd-shutdown"));
        d.adopted().ifPresent(System.out::println);
        System.out.println("memoryd " + Memoryd.VERSION + " serving " + cfg.root() + " on " + cfg.socket());
        System.out.flush();
        d.awaitStop();
        return Main.OK;
    }

    /** Whether the root's repository has {@code cfg}'s branch (a daemon serving none would refuse every write). */
    private static boolean hasBranch(MemorydConfig cfg) throws IOException {
        try (var repo = new org.eclipse.jgit.storage.file.FileRepositoryBuilder()
                .setGitDir(cfg.root().resolve(".git").toFile())
                .setMustExist(true)
                .build()) {
            return repo.exactRef(org.eclipse.jgit.lib.Constants.R_HEADS + cfg.branch()) != null;
        }
    }

    private static boolean isEmptyDir(Path p) throws IOException {
        try (var s = Files.list(p)) {
            return s.findAny().isEmpty();
        }
    }
}
