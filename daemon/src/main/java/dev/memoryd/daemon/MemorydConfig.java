package dev.memoryd.daemon;

import dev.memoryd.daemon.peers.PeerMount;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Everything a daemon instance is built from. Clock, randomness and the key file are injected so
 * tests are deterministic.
 */
public record MemorydConfig(
        Path root,
        Path keyFile,
        String branch,
        Path templatesDir,
        int maxLineBytes,
        Duration idleTimeout,
        int maxBatch,
        int segmentLines,
        Clock clock,
        SecureRandom random,
        Duration halfLife,
        Duration quiet,
        Duration rescanEvery,
        int maxConnections,
        List<PeerMount> peers) {

    public static final String DEFAULT_BRANCH = "main";
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;

    public MemorydConfig {
        root = root.toAbsolutePath().normalize();
        if (maxConnections < 1) {
            throw new IllegalArgumentException("the connection limit must be at least 1, not " + maxConnections);
        }
        peers = List.copyOf(peers);
    }

    /** With no peers mounted from the command line. */
    public MemorydConfig(
            Path root,
            Path keyFile,
            String branch,
            Path templatesDir,
            int maxLineBytes,
            Duration idleTimeout,
            int maxBatch,
            int segmentLines,
            Clock clock,
            SecureRandom random,
            Duration halfLife,
            Duration quiet,
            Duration rescanEvery,
            int maxConnections) {
        this(
                root,
                keyFile,
                branch,
                templatesDir,
                maxLineBytes,
                idleTimeout,
                maxBatch,
                segmentLines,
                clock,
                random,
                halfLife,
                quiet,
                rescanEvery,
                maxConnections,
                List.of());
    }

    /** With the default connection limit. */
    public MemorydConfig(
            Path root,
            Path keyFile,
            String branch,
            Path templatesDir,
            int maxLineBytes,
            Duration idleTimeout,
            int maxBatch,
            int segmentLines,
            Clock clock,
            SecureRandom random,
            Duration halfLife,
            Duration quiet,
            Duration rescanEvery) {
        this(
                root,
                keyFile,
                branch,
                templatesDir,
                maxLineBytes,
                idleTimeout,
                maxBatch,
                segmentLines,
                clock,
                random,
                halfLife,
                quiet,
                rescanEvery,
                DEFAULT_MAX_CONNECTIONS);
    }

    public static MemorydConfig defaults(Path root, Path keyFile) {
        return new MemorydConfig(
                root,
                keyFile,
                DEFAULT_BRANCH,
                null,
                1 << 20,
                Duration.ofSeconds(10),
                256,
                32,
                Clock.systemUTC(),
                new SecureRandom(),
                Duration.ofDays(90),
                Duration.ofSeconds(2),
                Duration.ofSeconds(60));
    }

    public MemorydConfig withIdleTimeout(Duration d) {
        return new MemorydConfig(
                root,
                keyFile,
                branch,
                templatesDir,
                maxLineBytes,
                d,
                maxBatch,
                segmentLines,
                clock,
                random,
                halfLife,
                quiet,
                rescanEvery,
                maxConnections,
                peers);
    }

    /** Serves {@code name}: the branch checked out in the working tree (the writer refuses otherwise). */
    public MemorydConfig withBranch(String name) {
        return new MemorydConfig(
                root,
                keyFile,
                name,
                templatesDir,
                maxLineBytes,
                idleTimeout,
                maxBatch,
                segmentLines,
                clock,
                random,
                halfLife,
                quiet,
                rescanEvery,
                maxConnections,
                peers);
    }

    public MemorydConfig withTemplatesDir(Path dir) {
        return new MemorydConfig(
                root,
                keyFile,
                branch,
                dir,
                maxLineBytes,
                idleTimeout,
                maxBatch,
                segmentLines,
                clock,
                random,
                halfLife,
                quiet,
                rescanEvery,
                maxConnections,
                peers);
    }

    public MemorydConfig withMaxLineBytes(int n) {
        return new MemorydConfig(
                root,
                keyFile,
                branch,
                templatesDir,
                n,
                idleTimeout,
                maxBatch,
                segmentLines,
                clock,
                random,
                halfLife,
                quiet,
                rescanEvery,
                maxConnections,
                peers);
    }

    /** Half-life of time-based staleness (Slices v1): FRESH/STALE in listings and search. */
    public MemorydConfig withHalfLife(Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("the staleness half-life must be positive");
        }
        return new MemorydConfig(
                root,
                keyFile,
                branch,
                templatesDir,
                maxLineBytes,
                idleTimeout,
                maxBatch,
                segmentLines,
                clock,
                random,
                d,
                quiet,
                rescanEvery,
                maxConnections,
                peers);
    }

    /**
     * How long the working tree must be still before humans' edits are captured, and how often
     * everything is rescanned in case the file watch missed an event (zero: never).
     */
    public MemorydConfig withWatch(Duration quiet, Duration rescanEvery) {
        if (quiet.isNegative() || rescanEvery.isNegative()) {
            throw new IllegalArgumentException("the quiet period and the rescan interval cannot be negative");
        }
        return new MemorydConfig(
                root,
                keyFile,
                branch,
                templatesDir,
                maxLineBytes,
                idleTimeout,
                maxBatch,
                segmentLines,
                clock,
                random,
                halfLife,
                quiet,
                rescanEvery,
                maxConnections,
                peers);
    }

    /** The clock events, ids and timers read (tests move it). */
    public MemorydConfig withClock(Clock c) {
        return new MemorydConfig(
                root,
                keyFile,
                branch,
                templatesDir,
                maxLineBytes,
                idleTimeout,
                maxBatch,
                segmentLines,
                java.util.Objects.requireNonNull(c, "clock"),
                random,
                halfLife,
                quiet,
                rescanEvery,
                maxConnections,
                peers);
    }

    /**
     * At most this many client connections are open at once (lowered further when the process's
     * open-file limit is too low to leave the writer its descriptors).
     */
    public MemorydConfig withMaxConnections(int n) {
        return new MemorydConfig(
                root,
                keyFile,
                branch,
                templatesDir,
                maxLineBytes,
                idleTimeout,
                maxBatch,
                segmentLines,
                clock,
                random,
                halfLife,
                quiet,
                rescanEvery,
                n,
                peers);
    }

    /**
     * Mounts {@code mounts} as read-only peers ({@code serve --peer}), beside those the root's
     * {@code memoryd.yaml} names.
     */
    public MemorydConfig withPeers(List<PeerMount> mounts) {
        return new MemorydConfig(
                root,
                keyFile,
                branch,
                templatesDir,
                maxLineBytes,
                idleTimeout,
                maxBatch,
                segmentLines,
                clock,
                random,
                halfLife,
                quiet,
                rescanEvery,
                maxConnections,
                mounts);
    }

    public Path stateDir() {
        return root.resolve(".memoryd");
    }

    public Path socket() {
        return stateDir().resolve("memoryd.sock");
    }

    public Path ledgerDir() {
        return root.resolve("ledger");
    }

    /** Key file: flag, then {@code MEMORYD_KEY_FILE}, then {@code ~/.config/memoryd/ledger.key}. */
    public static Path defaultKeyFile() {
        String env = System.getenv("MEMORYD_KEY_FILE");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        return Path.of(System.getProperty("user.home"), ".config", "memoryd", "ledger.key");
    }
}
