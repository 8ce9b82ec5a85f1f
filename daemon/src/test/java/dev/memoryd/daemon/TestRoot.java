package dev.memoryd.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.app.Daemon;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A memory root in a temp directory with the example tree, its key file beside it (never inside),
 * and optionally a daemon serving it in-process over the real socket.
 */
final class TestRoot implements AutoCloseable {
    final Path dir;
    MemorydConfig cfg;
    Daemon daemon;

    TestRoot(Path tmp) throws IOException {
        this(tmp, Duration.ofSeconds(10));
    }

    TestRoot(Path tmp, Duration idle) throws IOException {
        this.dir = tmp.resolve("memory");
        this.cfg = MemorydConfig.defaults(dir, tmp.resolve("keys/ledger.key")).withIdleTimeout(idle);
        Memoryd.init(cfg, exampleTree());
    }

    private TestRoot(Path dir, MemorydConfig cfg) {
        this.dir = dir;
        this.cfg = cfg;
    }

    /** A root cloned from {@code url} as replica {@code replica}, sharing {@code keyFile} (not served yet). */
    static TestRoot cloneOf(Path tmp, String url, Path keyFile, String replica) throws IOException {
        Path dir = tmp.resolve("memory");
        MemorydConfig cfg = MemorydConfig.defaults(dir, keyFile).withIdleTimeout(Duration.ofSeconds(10));
        Memoryd.cloneRoot(cfg, url, replica);
        return new TestRoot(dir, cfg);
    }

    /** A bare repository made at {@code dir} with branch {@code main}: a remote to push to and clone from. */
    static Path bareRemote(Path dir) throws org.eclipse.jgit.api.errors.GitAPIException {
        org.eclipse.jgit.api.Git.init()
                .setBare(true)
                .setInitialBranch("main")
                .setDirectory(dir.toFile())
                .call()
                .close();
        return dir;
    }

    /** An existing repository at {@code dir} (say, made with plain git clone), keyed by {@code keyFile}. */
    static TestRoot existing(Path dir, Path keyFile) {
        return new TestRoot(dir, MemorydConfig.defaults(dir, keyFile).withIdleTimeout(Duration.ofSeconds(10)));
    }

    /** Serves without importing the example (a clone's tree is already recorded elsewhere). */
    TestRoot serveAsIs() throws IOException {
        daemon = Daemon.start(cfg, false);
        return this;
    }

    /**
     * A root made from the example tree under {@code dir}, served by no daemon: the socket a
     * daemon would listen on is bound by the test, to play a daemon that misbehaves.
     */
    static java.nio.channels.ServerSocketChannel boundInPlaceOfADaemon(MemorydConfig cfg) throws IOException {
        Memoryd.init(cfg, exampleTree());
        Files.createDirectories(cfg.stateDir());
        java.nio.channels.ServerSocketChannel server =
                java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
        server.bind(java.net.UnixDomainSocketAddress.of(cfg.socket()));
        return server;
    }

    static Path exampleTree() {
        try {
            return Path.of(TestRoot.class.getClassLoader().getResource("users").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    TestRoot serve() throws IOException {
        daemon = Daemon.start(cfg, false);
        importExample();
        return this;
    }

    /**
     * Records the example tree the init commit holds as the human's import (what the watcher does
     * at a daemon's start), so tests start from a ledger that already replays to the tree.
     */
    void importExample() throws IOException {
        daemon.service().captureNow(java.util.List.of()).join();
    }

    /** Ledger lines of the example tree's import: tests count their own lines past it. */
    static final int IMPORT_LINES = 8;

    /** Changes the configuration the next {@link #serve} uses. */
    TestRoot configure(java.util.function.UnaryOperator<MemorydConfig> f) {
        cfg = f.apply(cfg);
        return this;
    }

    /**
     * {@code git status --porcelain}, asked again until it is empty or {@code waitMs} passed: the
     * writer refreshes the index once writes pause.
     */
    String statusOnceQuiet(long waitMs) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + waitMs * 1_000_000;
        String status = git("status", "--porcelain");
        while (!status.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            status = git("status", "--porcelain");
        }
        return status;
    }

    /** Runs the real git CLI in the root; fails the test on a non-zero exit. */
    String git(String... args) throws IOException, InterruptedException {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("git", "-C", dir.toString()));
        cmd.addAll(java.util.List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new AssertionError("git " + String.join(" ", args) + " failed: " + out);
        }
        return out;
    }

    /** Serves with the file watcher on. */
    TestRoot serveWatching() throws IOException {
        daemon = Daemon.start(cfg, true);
        return this;
    }

    SocketClient client() throws IOException {
        return SocketClient.connect(cfg.socket());
    }

    /** {@code args} followed by this root's {@code --root} and {@code --key-file}, for the command line. */
    String[] cliArgs(String... args) {
        String[] full = java.util.Arrays.copyOf(args, args.length + 4);
        full[args.length] = "--root";
        full[args.length + 1] = dir.toString();
        full[args.length + 2] = "--key-file";
        full[args.length + 3] = cfg.keyFile().toString();
        return full;
    }

    /** The id of the oldest open drift item (the test knows there is one). */
    String firstDriftId() throws IOException {
        return call("drift.list", null)
                .get("result")
                .get("items")
                .get(0)
                .get("id")
                .asText();
    }

    JsonNode call(String method, String paramsJson) throws IOException {
        try (SocketClient c = client()) {
            return c.call(method, paramsJson == null ? null : JsonRpc.MAPPER.readTree(paramsJson));
        }
    }

    static ObjectNode json(String s) throws IOException {
        return (ObjectNode) JsonRpc.MAPPER.readTree(s);
    }

    String file(String rel) throws IOException {
        return Files.readString(dir.resolve(rel));
    }

    @Override
    public void close() {
        if (daemon != null) {
            daemon.close();
        }
    }

    /** An object's field names in the order they come: what a wire-shape test compares. */
    static java.util.List<String> keys(JsonNode o) {
        java.util.List<String> out = new java.util.ArrayList<>();
        o.fieldNames().forEachRemaining(out::add);
        return out;
    }

    /** Sets or clears a file attribute with {@code chattr} ({@code +i}: immutable), failing the test if it cannot. */
    static void chattr(String flag, Path p) throws Exception {
        Process pr = new ProcessBuilder("chattr", flag, p.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(pr.getInputStream().readAllBytes());
        int rc = pr.waitFor();
        if (rc != 0) {
            throw new AssertionError("chattr " + flag + " " + p + ": " + out);
        }
    }
}
