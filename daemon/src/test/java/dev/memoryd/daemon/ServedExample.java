package dev.memoryd.daemon;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The example root served by a daemon child process, with a human's git in its working tree and
 * the checks of what must hold there: the set-up of tests that put plain git beside a daemon.
 * Everything lives under one directory (the root {@code memory}, its key, the daemon's logs, and
 * {@code clones} for the checks' clones), so a test's {@code @TempDir} kept on failure holds it
 * all. A test's own: not thread-safe.
 */
final class ServedExample implements AutoCloseable {
    final Path dir;
    final MemorydConfig cfg;
    final HumanGit git;
    /** The daemon serving the root; null between {@link #stop} and {@link #serve}. */
    DaemonProcess daemon;

    RootInvariants root;

    private ServedExample(Path dir, MemorydConfig cfg) {
        this.dir = dir;
        this.cfg = cfg;
        this.git = new HumanGit(cfg.root());
    }

    /** Makes the example root under {@code dir} and serves it (its log {@code daemon.log}), the example imported. */
    static ServedExample start(Path dir) throws Exception {
        MemorydConfig cfg = MemorydConfig.defaults(dir.resolve("memory"), dir.resolve("ledger.key"));
        Memoryd.init(cfg, TestRoot.exampleTree());
        ServedExample s = new ServedExample(dir, cfg);
        s.serve("daemon.log");
        return s;
    }

    /** Serves the root with a new daemon child logging to {@code log} (under the directory); returns once it answers. */
    void serve(String log) throws Exception {
        daemon = DaemonProcess.start(cfg, dir.resolve(log));
        Files.createDirectories(dir.resolve("clones"));
        root = new RootInvariants(daemon, dir.resolve("clones"));
        daemon.awaitImported();
    }

    /** Stops the daemon, if one serves. */
    void stop() throws InterruptedException {
        if (daemon != null) {
            daemon.close();
            daemon = null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
